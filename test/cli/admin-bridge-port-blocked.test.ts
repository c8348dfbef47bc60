import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClosingListener, startClosingListener } from '../support/closing-listener.ts';
import { runBin } from '../support/run-bin.ts';

// A data dir under a file: were start to go past its configuration, it would fail there (exit 1).
const scratch = mkdtempSync(join(tmpdir(), 'admin-bridge-port-'));
writeFileSync(join(scratch, 'file'), '');
const UNOPENABLE_DATA_DIR = join(scratch, 'file', 'data');

/** The line naming BRIDGE_PORT in a command's stderr. */
function bridgePortLine(stderr: string): string | undefined {
  return stderr.split('\n').find((line) => line.includes('BRIDGE_PORT'));
}

// The admin commands reach the running bridge at BRIDGE_PORT, which start refuses when fetch
// never connects to it (6000, 6665-6669, 10080…): they said they could not reach the bridge
// (exit 1), a configuration fault reported as a runtime one.
describe('admin commands with BRIDGE_PORT a port fetch never connects to', () => {
  // Closes every connection: what reaches it is a request the command made.
  let listener: ClosingListener;

  beforeAll(async () => {
    listener = await startClosingListener();
  });

  afterAll(async () => {
    await listener.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('exits 2 in the words start refuses it with, naming BRIDGE_PORT', async () => {
    const start = await runBin(['start', '--data-dir', UNOPENABLE_DATA_DIR], {
      BRIDGE_PORT: '6000',
    });
    expect(start.code, start.stderr).toBe(2);
    const refusal = bridgePortLine(start.stderr);
    expect(refusal).toContain('BRIDGE_PORT: 6000 is a port fetch and browsers never connect to');

    for (const args of [
      ['subscriptions', 'list'],
      ['deliveries', 'list', '--json'],
      ['call', 'taxEnvironments/getAll', '--via-bridge'],
    ]) {
      const result = await runBin(args, { BRIDGE_PORT: '6000' });
      expect({ args, code: result.code, stdout: result.stdout }, result.stderr).toEqual({
        args,
        code: 2,
        stdout: '',
      });
      expect(bridgePortLine(result.stderr), args.join(' ')).toBe(refusal);
      expect(result.stderr).not.toContain('cannot reach');
    }
  }, 60_000);

  it('still reaches a bridge at a BRIDGE_PORT fetch connects to', async () => {
    const { port } = listener;
    const result = await runBin(['subscriptions', 'list'], { BRIDGE_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the admin API at http://127.0.0.1:${port}`);
    expect(listener.connections()).toBeGreaterThan(0);
  }, 30_000);
});
