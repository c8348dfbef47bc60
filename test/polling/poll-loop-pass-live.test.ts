import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { catchUpSlots } from '../../shared/polling/catch-up-slots.ts';
import type { PollLoop } from '../../shared/polling/poll-loop-options.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { BackfillPass } from '../../shared/state/state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;
const CONCURRENCY = 8;
const HISTORY_START = '2026-01-01T00:00:00.000Z';

interface SentRequest {
  token: string;
  path: string;
  startUtc: string | undefined;
}

/**
 * A connector that answers every request at once with an empty page, except those of the
 * `busy-*` tokens: theirs wait until released, as first syncs of large hotels hold their slots.
 */
class BusyTransport implements HttpTransport {
  readonly sent: SentRequest[] = [];
  private readonly held: (() => void)[] = [];

  postJson(url: string, body: string): Promise<RawResponse> {
    const parsed = JSON.parse(body) as { AccessToken: string; UpdatedUtc?: { StartUtc: string } };
    const path = url.slice(url.lastIndexOf('/v1/') + 4);
    this.sent.push({ token: parsed.AccessToken, path, startUtc: parsed.UpdatedUtc?.StartUtc });
    const answer: RawResponse = {
      status: 200,
      headers: {},
      text: JSON.stringify(
        path === 'customers/getAll' ? { Customers: [], Cursor: null } : { TaxEnvironments: [] },
      ),
    };
    if (!parsed.AccessToken.startsWith('busy-')) return Promise.resolve(answer);
    return new Promise((resolve) => this.held.push(() => resolve(answer)));
  }

  releaseAll(): void {
    for (const release of this.held.splice(0)) release();
  }

  async close(): Promise<void> {}
}

/** A pass of the stream's backfill that has read nothing yet. */
function freshPass(): BackfillPass {
  return {
    kind: 'pass',
    jobId: 'bf_test',
    emit: false,
    startedAt: T0 - 1_000,
    endUtc: new Date(T0 - 1_000).toISOString(),
    watermark: null,
    window: null,
    recordsRead: 0,
    eventsPublished: 0,
    doneAt: null,
  };
}

let running: { loop: PollLoop; transport: BusyTransport } | undefined;
afterEach(async () => {
  running?.transport.releaseAll();
  await running?.loop.stop();
  running = undefined;
});

/**
 * `busy` hotels in their first sync (requests held) and one hotel `pass-0` whose stream is
 * caught up and running a backfill pass, every stream of `entity` polled every second.
 */
async function startLoop(busy: number, entity = 'customer') {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: entity, POLL_INTERVAL: '1s', POLL_HISTORY_START: HISTORY_START },
    T0,
  );
  const store = new MemoryStateStore();
  const ids = [...Array.from({ length: busy }, (_, i) => `busy-${i}`), 'pass-0'];
  const definitions = ids.flatMap((id) => streamDefinitions(id, settings));
  const passStream = definitions.find((d) => d.connectionId === 'pass-0')!;
  const watermark = new Date(T0 - 1_000).toISOString();
  await store.saveStream(
    {
      ...initialStreamState(passStream, T0),
      initialSyncDone: true,
      watermark,
      lastPollAt: T0 - 1_000,
      lastSuccessAt: T0 - 1_000,
      lastSweepAt: T0,
      backfill: freshPass(),
    },
    0,
  );
  const transport = new BusyTransport();
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
    connectionOf: (definition) => ({ client: clients.get(definition.connectionId)! }),
    deps: collectingPollDeps(store, clients.get('pass-0')!, clock, settings),
    owner: 'test',
    tickMs: TICK_MS,
    concurrency: CONCURRENCY,
  });
  running = { loop, transport };
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  /** Moves the clock `ms` on, tick by tick, letting the loop run at each. */
  const run = async (ms: number) => {
    for (let at = 0; at < ms; at += TICK_MS) {
      await clock.advance(TICK_MS);
      await settle();
    }
  };
  const passStreamRequests = () => transport.sent.filter((r) => r.token === 'pass-0');
  await settle();
  return { clock, transport, store, run, passStream, passStreamRequests };
}

describe('a stream running a backfill pass while the catch-up slots are taken', () => {
  it('still reads its live window at its interval (design.md: p99 ≤ 2 s while a backfill runs)', async () => {
    const { transport, run, passStreamRequests } = await startLoop(catchUpSlots(CONCURRENCY) + 1);
    // Every catch-up slot holds a first sync that does not end.
    const busyTokens = new Set(transport.sent.map((r) => r.token).filter((t) => t !== 'pass-0'));
    expect(busyTokens.size).toBe(catchUpSlots(CONCURRENCY));
    await run(5_000);
    const live = passStreamRequests().filter((r) => r.startUtc !== HISTORY_START);
    // Polled every second: its live window read about five times in five seconds.
    expect(live.length).toBeGreaterThanOrEqual(4);
    // Its pass still waits for a catch-up slot: no page of it was asked for.
    expect(passStreamRequests().filter((r) => r.startUtc === HISTORY_START)).toEqual([]);
  });

  it('runs its pass once a catch-up slot is free, its live window first', async () => {
    const { passStreamRequests, run } = await startLoop(0);
    await run(1_000);
    const requests = passStreamRequests();
    expect(requests[0]?.startUtc).not.toBe(HISTORY_START);
    expect(requests.some((r) => r.startUtc === HISTORY_START)).toBe(true);
  });

  it('a listing stream whose poll is the pass is polled as well', async () => {
    const { transport, run, passStreamRequests } = await startLoop(
      catchUpSlots(CONCURRENCY) + 1,
      'taxEnvironment',
    );
    expect(new Set(transport.sent.map((r) => r.token)).has('pass-0')).toBe(true);
    await run(3_000);
    expect(passStreamRequests().length).toBeGreaterThanOrEqual(2);
  });
});
