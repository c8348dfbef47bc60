import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { catchUpSlots, reservedCatchUpSlots } from '../../shared/polling/catch-up-slots.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { dependantSignals } from '../support/dependant-signals.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;

/** A connector whose answers wait until released: what is in flight is what the loop started. */
class HeldTransport implements HttpTransport {
  /** By AccessToken (a second request of one token in flight: `<token>#<n>`). */
  readonly inFlight = new Map<string, () => void>();
  maxInFlight = 0;
  private requests = 0;

  postJson(url: string, body: string): Promise<RawResponse> {
    const { AccessToken } = JSON.parse(body) as { AccessToken: string };
    this.requests += 1;
    const key = this.inFlight.has(AccessToken) ? `${AccessToken}#${this.requests}` : AccessToken;
    return new Promise((resolve) => {
      this.inFlight.set(key, () => {
        this.inFlight.delete(key);
        resolve({ status: 200, headers: {}, text: JSON.stringify({ TaxEnvironments: [] }) });
      });
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight.size);
      void url;
    });
  }

  releaseAll(): void {
    for (const release of [...this.inFlight.values()]) release();
  }

  async close(): Promise<void> {}
}

/** Hotels `live-*` (first sync done, due now) and `new-*` (never polled), one stream each. */
async function startLoop(
  live: number,
  fresh: number,
  concurrency: number,
  entities = 'taxEnvironment',
  /** Every connection's own signal (its removal or disabling), for as long as it exists. */
  connectionSignal?: AbortSignal,
) {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: entities, POLL_INTERVAL: '1m' }, T0);
  const store = new MemoryStateStore();
  const ids = [
    ...Array.from({ length: live }, (_, i) => `live-${i}`),
    ...Array.from({ length: fresh }, (_, i) => `new-${i}`),
  ];
  const definitions = ids.flatMap((id) => streamDefinitions(id, settings));
  for (const definition of definitions.filter((d) => d.connectionId.startsWith('live-'))) {
    const state = initialStreamState(definition, T0);
    await store.saveStream({ ...state, initialSyncDone: true, lastPollAt: T0 - 60_000 }, 0);
  }
  const transport = new HeldTransport();
  const clients = new Map(
    ids.map((id) => [
      id,
      createConnectorClient(
        {
          baseUrl: 'http://connector.test',
          clientToken: 'c',
          accessToken: id,
          client: 'test',
          rateLimit: false,
        },
        { clock, transport },
      ),
    ]),
  );
  const loop = startPollLoop({
    definitions,
    connectionOf: (definition) => ({
      client: clients.get(definition.connectionId)!,
      ...(connectionSignal ? { signal: connectionSignal } : {}),
    }),
    deps: collectingPollDeps(store, clients.get(ids[0]!)!, clock, settings),
    owner: 'test',
    tickMs: TICK_MS,
    concurrency,
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  return { clock, transport, loop, settle, store };
}

describe('the poll loop’s concurrency', () => {
  it('leaves three slots of every four to live streams, and one to first syncs', () => {
    expect(catchUpSlots(128)).toBe(32);
    expect(catchUpSlots(3)).toBe(1);
    expect(catchUpSlots(2)).toBe(1);
    expect(catchUpSlots(1)).toBe(1);
  });

  it('starts a thousand first syncs a few at a time, within the catch-up share', async () => {
    const { clock, transport, loop, settle } = await startLoop(0, 1000, 8);
    await settle();
    expect(transport.inFlight.size).toBe(catchUpSlots(8));
    transport.releaseAll();
    await settle();
    await clock.advance(TICK_MS);
    await settle();
    expect(transport.inFlight.size).toBe(catchUpSlots(8));
    expect(transport.maxInFlight).toBe(catchUpSlots(8));
    transport.releaseAll();
    await loop.stop();
  });

  it('gives a finished poll’s slot to a waiting stream at once, not at the next tick', async () => {
    const { transport, loop, settle } = await startLoop(4, 0, 2);
    await settle();
    expect([...transport.inFlight.keys()].sort()).toEqual(['live-0', 'live-1']);
    // The clock stands still: no tick comes, yet each release starts the next due stream.
    transport.inFlight.get('live-0')!();
    await settle();
    expect([...transport.inFlight.keys()].sort()).toEqual(['live-1', 'live-2']);
    transport.inFlight.get('live-1')!();
    await settle();
    expect([...transport.inFlight.keys()].sort()).toEqual(['live-2', 'live-3']);
    expect(transport.maxInFlight).toBe(2);
    transport.releaseAll();
    await loop.stop();
  });

  it('keeps a slot for first syncs while live streams want every slot, so none waits for ever', async () => {
    expect(reservedCatchUpSlots(128)).toBe(4);
    expect(reservedCatchUpSlots(8)).toBe(1);
    const { transport, loop, settle } = await startLoop(20, 5, 8);
    await settle();
    const started = [...transport.inFlight.keys()];
    expect(started.filter((token) => token.startsWith('live-'))).toHaveLength(7);
    expect(started.filter((token) => token.startsWith('new-'))).toEqual(['new-0']);
    transport.releaseAll();
    await loop.stop();
  });

  it('gives the catch-up slots to one stream of each connection before a second', async () => {
    const { transport, loop, settle } = await startLoop(
      0,
      3,
      24,
      'taxEnvironment,billingAutomation',
    );
    await settle();
    // Six slots over three hotels of two streams each: every stream, two per hotel.
    expect([...transport.inFlight.keys()]).toHaveLength(6);
    transport.releaseAll();
    await loop.stop();

    const spread = await startLoop(0, 10, 16, 'taxEnvironment,billingAutomation');
    await spread.settle();
    // Four slots over ten hotels: four hotels, one stream each (their tokens pace bulk work).
    expect([...spread.transport.inFlight.keys()].sort()).toEqual([
      'new-0',
      'new-1',
      'new-2',
      'new-3',
    ]);
    spread.transport.releaseAll();
    await spread.loop.stop();
  });

  it('polls due live streams at once while first syncs fill their share', async () => {
    const { transport, loop, settle } = await startLoop(3, 1000, 8);
    await settle();
    const started = [...transport.inFlight.keys()];
    expect(started.filter((token) => token.startsWith('live-')).sort()).toEqual([
      'live-0',
      'live-1',
      'live-2',
    ]);
    expect(started.filter((token) => token.startsWith('new-'))).toHaveLength(catchUpSlots(8));
    transport.releaseAll();
    await loop.stop();
  });

  it('keeps starting due polls while a full read of the states hangs', async () => {
    const { clock, transport, loop, settle, store } = await startLoop(1, 0, 8);
    await settle();
    expect([...transport.inFlight.keys()]).toEqual(['live-0']);
    // From now on every full read of the states hangs (a store slowed down by load).
    const listStreams = store.listStreams.bind(store);
    let finishReads: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => {
      finishReads = resolve;
    });
    store.listStreams = () => hung.then(() => listStreams());
    transport.releaseAll();
    await settle();
    await clock.advance(60_000);
    await settle();
    expect([...transport.inFlight.keys()]).toEqual(['live-0']);
    transport.releaseAll();
    finishReads();
    await loop.stop();
  });
});

describe('a connection’s signal, which lives as long as the connection', () => {
  it('gains nothing per poll: a signal made for each poll from it was kept for ever (a leak of every poll)', async () => {
    const connection = new AbortController();
    const { clock, transport, loop, settle } = await startLoop(
      3,
      0,
      8,
      'taxEnvironment',
      connection.signal,
    );
    let polls = 0;
    for (let round = 0; round < 5; round++) {
      await settle();
      polls += transport.inFlight.size;
      transport.releaseAll();
      await settle();
      for (let tick = 0; tick < 600; tick++) await clock.advance(TICK_MS);
    }
    await settle();
    transport.releaseAll();
    await loop.stop();
    expect(polls).toBeGreaterThanOrEqual(10);
    expect(dependantSignals(connection.signal)).toBeLessThanOrEqual(1);
  });
});
