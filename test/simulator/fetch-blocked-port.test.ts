import { describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';

// fetch (undici, the bridge's and call's client) never connects to the WHATWG "bad ports": a
// simulator listening on one could not be polled. Run as a process: were it to listen, the run
// would end only when killed, with no exit code.
describe('simulator --port on a port fetch never connects to', () => {
  it('exits 2 naming --port and the port, as start does, and listens nowhere', async () => {
    const result = await runBin(['simulator', '--port', '6000', '--activity', '0'], {}, 15_000);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'error: configuration is invalid: --port: 6000 is a port fetch and browsers never connect to (WHATWG "bad ports"): neither a bridge nor call could reach the simulator; choose another',
    );
  });
});
