import { runCli } from '../../shared/cli/main.ts';
import type { BinResult } from './run-bin.ts';

/**
 * Runs `change-bridge ARGS` in this process (the CLI's sources, as the executable runs them)
 * with `env` added to process.env for the run, and collects its output: what {@link runBin}
 * gives, without starting node and loading the CLI again (about a second of CPU each). For
 * commands that end by themselves; process.env is restored afterwards.
 */
export async function runCliHere(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<BinResult> {
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  const setVariable = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const [name, value] of Object.entries(env)) setVariable(name, value);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await runCli(args, {
      out: (text) => out.push(text.endsWith('\n') ? text : `${text}\n`),
      err: (text) => err.push(text.endsWith('\n') ? text : `${text}\n`),
    });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    for (const [name, value] of saved) setVariable(name, value);
  }
}
