import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';
import { streamState } from '../state/state-store.contract.ts';

const REFUSED = 'authorization failed: 401 Unauthorized: Invalid AccessToken';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
  await cli.run(['connections', 'add', '--id', 'hotel-1', '--access-token-stdin'], {
    stdin: 'revoked-token\n',
  });
  for (const entity of ['customer', 'resource'])
    await cli.harness.state.saveStream(
      streamState(`hotel-1:${entity}`, { parked: true, parkedReason: REFUSED }),
      0,
    );
});
afterAll(() => cli?.close());

describe('change-bridge connections show of a connection whose token is refused', () => {
  it('says its streams are parked, and why', async () => {
    const shown = await cli.run(['connections', 'show', 'hotel-1']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('connection hotel-1 (enabled, store)');
    expect(shown.stdout).toMatch(/parked\s+2 of 2 streams/);
    expect(shown.stdout).toContain(`hotel-1:customer: ${REFUSED}`);
  });

  it('gives the same with --json, as parkedStreams beside the fields it had', async () => {
    const shown = await cli.run(['connections', 'show', 'hotel-1', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id: 'hotel-1',
      enabled: true,
      origin: 'store',
      parkedStreams: {
        count: 2,
        total: 2,
        first: { streamId: 'hotel-1:customer', reason: REFUSED },
      },
    });
  });
});
