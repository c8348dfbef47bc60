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

describe('change-bridge connections list beside a connection whose token is refused', () => {
  it('shows how many of each connection’s streams are parked, in a PARKED column', async () => {
    await cli.run(['connections', 'add', '--id', 'hotel-2', '--access-token-stdin'], {
      stdin: 'good-token\n',
    });
    await cli.harness.state.saveStream(streamState('hotel-2:customer'), 0);

    const listed = await cli.run(['connections', 'list']);

    expect(listed.code).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATE\s+PARKED\s+ENTITIES/);
    expect(lines.find((line) => line.startsWith('hotel-1 '))).toMatch(
      /^hotel-1\s+enabled\s+2 of 2\s/,
    );
    expect(lines.find((line) => line.startsWith('hotel-2 '))).toMatch(/^hotel-2\s+enabled\s+-\s/);
  });

  it('gives each connection its parkedStreams with --json', async () => {
    const listed = await cli.run(['connections', 'list', '--json']);

    const connections = JSON.parse(listed.stdout) as { id: string; parkedStreams: unknown }[];
    expect(connections.find((c) => c.id === 'hotel-1')?.parkedStreams).toEqual({
      count: 2,
      total: 2,
      first: { streamId: 'hotel-1:customer', reason: REFUSED },
    });
    expect(connections.find((c) => c.id === 'hotel-2')?.parkedStreams).toEqual({
      count: 0,
      total: 1,
    });
  });
});
