import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type BridgeProcess, bridgeProcess } from '../chaos/bridge-process.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/wait-for.ts';

type StreamRow = {
  id: string;
  lastPollAt: string | null;
  initialSyncDone: boolean;
};

/**
 * Well under the loop's full read of every state (once a minute): what the admin API changes
 * reaches the poll loop by its notices, in a tick or two (250 ms each at 1-minute polling).
 */
const WITHIN_TICKS_MS = 5_000;

describe('change-bridge start told of the admin API’s changes to its streams', () => {
  let sim: RunningSimulator;
  let bridge: BridgeProcess;
  let dataDir: string;

  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${bridge.api}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  }

  async function stream(id: string): Promise<StreamRow | undefined> {
    const { streams } = (await call('GET', '/streams')) as { streams: StreamRow[] };
    return streams.find((row) => row.id === id);
  }

  /** Waits for a poll of `id` started after `since` (ms). */
  const polledAfter = (id: string, since: number, what: string) =>
    waitFor(
      async () => {
        const row = await stream(id);
        return row?.lastPollAt && Date.parse(row.lastPollAt) >= since ? row : false;
      },
      WITHIN_TICKS_MS,
      what,
    );

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, size: 'small', rateLimit: false });
    dataDir = await mkdtemp(join(tmpdir(), 'cb-state-changes-'));
    bridge = bridgeProcess({
      port: await freePort(),
      dataDir,
      pollInterval: '1m',
      env: { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', POLL_HISTORY_START: '30d' },
    });
    bridge.start();
    await waitFor(
      async () => (await stream('local:customer').catch(() => undefined))?.initialSyncDone ?? false,
      30_000,
      'the first sync of the environment’s connection',
    );
  }, 40_000);

  afterAll(async () => {
    await bridge?.stop();
    await sim?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('polls an added connection, a reset stream and a backfilled one within ticks, not at the next full read', async () => {
    const addedAt = Date.now();
    await call('POST', '/connections', {
      id: 'hotel-2',
      accessToken: sim.tokens.accessToken,
      entities: ['customer'],
      interval: '1m',
    });
    await polledAfter('hotel-2:customer', addedAt, 'the added connection’s first poll');
    await waitFor(
      async () => (await stream('hotel-2:customer'))?.initialSyncDone ?? false,
      WITHIN_TICKS_MS,
      'the added connection’s first sync',
    );

    // Caught up, polled every minute: a reset makes it due now, and only the notice says so.
    const resetAt = Date.now();
    await call('POST', '/streams/local:customer/reset');
    const reset = await polledAfter('local:customer', resetAt, 'the reset stream’s poll');
    expect(reset).toBeTruthy();

    const backfillAt = Date.now();
    await call('POST', '/backfill', { connections: ['hotel-2'], entities: ['customer'] });
    await polledAfter('hotel-2:customer', backfillAt, 'the backfilled stream’s poll');
  }, 60_000);
});
