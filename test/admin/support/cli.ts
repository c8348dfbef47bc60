import { type AdminServer, startAdminServer } from '../../../shared/admin/node-server.ts';
import { runCli } from '../../../shared/cli/main.ts';
import { type AdminHarness, type AdminHarnessOptions, createAdminHarness } from './harness.ts';

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The admin API on in-memory ports behind a real node:http server on port 0, and a CLI runner aimed at it. */
export async function startCliHarness(
  options: { token?: string; harness?: AdminHarnessOptions } = {},
): Promise<{
  harness: AdminHarness;
  server: AdminServer;
  run(args: readonly string[], options?: { api?: boolean; stdin?: string }): Promise<CliRun>;
  close(): Promise<void>;
}> {
  const harness = createAdminHarness(options.harness);
  const server = await startAdminServer({ port: 0, deps: harness.deps, token: options.token });
  return {
    harness,
    server,
    async run(args, options = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const argv = options.api === false ? [...args] : [...args, '--api', server.url];
      const code = await runCli(argv, {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
        readStdin: async () => options.stdin ?? '',
      });
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    },
    async close() {
      await server.close();
      await harness.close();
    },
  };
}
