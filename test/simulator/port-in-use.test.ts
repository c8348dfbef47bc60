import { createServer, type Server } from 'node:net';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliExit } from '../../shared/cli/exit-codes.ts';
import { registerSimulatorCommand } from '../../shared/simulator/cli.ts';

/** A port another program holds: a runtime failure (exit 1) whose message names --port, as start's. */
describe('simulator --port on a port already in use', () => {
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    port = address.port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('fails with exit 1 naming --port and the address', async () => {
    const root = new Command()
      .exitOverride()
      .configureOutput({ writeErr: () => {}, writeOut: () => {} });
    registerSimulatorCommand(root);
    const error = await root
      .parseAsync(['node', 'change-bridge', 'simulator', '--port', String(port), '--activity', '0'])
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    // Before, the bare "listen EADDRINUSE: address already in use 127.0.0.1:PORT".
    expect(error).toBeInstanceOf(CliExit);
    expect(error).toMatchObject({ code: 1 });
    expect((error as Error).message).toContain(`--port ${port}: 127.0.0.1:${port} is in use`);
  });
});
