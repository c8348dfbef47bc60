import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import {
  createUndiciTransport,
  type HttpTransport,
} from '../../shared/connector/http-transport.ts';
import { resolveFromDynalite } from '../../shared/local/dynalite-require.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { storeWriteProbe } from '../../shared/local/store-probe.ts';
import { HELD_STORE_PROBE_MS } from '../../shared/polling/held-stream-probe.ts';
import { OverlapMemory } from '../../shared/polling/overlap-memory.ts';
import type {
  HeldStream,
  PollLoop,
  PollLoopOptions,
} from '../../shared/polling/poll-loop-options.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { PollOutcome } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from './poll-harness.ts';

interface WritableLevel {
  _put(...args: unknown[]): Promise<void>;
  _batch(...args: unknown[]): Promise<void>;
}

/** dynalite's copy of classic-level, whose writes the test makes fail as on a full disk. */
const { ClassicLevel } = createRequire(resolveFromDynalite('level'))('classic-level') as {
  ClassicLevel: { prototype: WritableLevel };
};
const { _put: put, _batch: batch } = ClassicLevel.prototype;

const TABLE = 'change-bridge';
const TICK_MS = 250;
const STREAM = 'main:customer';

describe('the poll loop while the local store refuses writes (a full disk)', () => {
  let sim: RunningSimulator;
  let dir: string;
  let dynamo: LocalDynamoDb;
  let loop: PollLoop | undefined;
  const clock = new ManualClock(POLL_TEST_START_MS);
  /** In flight now: store calls and connector requests (the loop is idle when both are 0). */
  let busy = 0;
  let requests = 0;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, customers: 200, clock, rateLimit: false });
    dir = await mkdtemp(join(tmpdir(), 'poll-store-full-'));
    dynamo = await startLocalDynamoDb({ path: join(dir, 'dynamodb'), transport: 'in-process' });
    await createStateTable(dynamo.client, TABLE);
    // dynalite marks the table ACTIVE by a write of its own, a moment later.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  afterAll(async () => {
    ClassicLevel.prototype._put = put;
    ClassicLevel.prototype._batch = batch;
    await loop?.stop();
    await dynamo.close();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  const diskFull = (full: boolean) => {
    const refuse = async () => {
      throw new Error(`IO error: ${dir}/dynamodb/000003.log: No space left on device`);
    };
    ClassicLevel.prototype._put = full ? refuse : put;
    ClassicLevel.prototype._batch = full ? refuse : batch;
  };

  /** Counts what is in flight through `run`. */
  const tracked = async <T>(run: () => Promise<T>): Promise<T> => {
    busy += 1;
    try {
      return await run();
    } finally {
      busy -= 1;
    }
  };

  /** Real time until nothing is in flight for a few turns and the loop sleeps for its tick. */
  const idle = async () => {
    for (let quiet = 0; quiet < 5; ) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      quiet = busy === 0 && clock.pendingSleeps > 0 ? quiet + 1 : 0;
    }
  };

  /** Runs the loop for `ms` of simulated time, tick by tick. */
  const runFor = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += TICK_MS) {
      await idle();
      await clock.advance(TICK_MS);
    }
    await idle();
  };

  /** A loop over the customer stream of the simulator, on the real store, its calls counted. */
  const startLoop = (options: Partial<PollLoopOptions> = {}) => {
    const inner = createUndiciTransport();
    const transport: HttpTransport = {
      postJson: (...args) => {
        requests += 1;
        return tracked(() => inner.postJson(...args));
      },
      close: () => inner.close(),
    };
    const client = createConnectorClient(
      {
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock, transport },
    );
    const real = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock });
    // The real store, each call counted while in flight.
    const store = new Proxy(real, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          return result instanceof Promise ? tracked(() => result) : result;
        };
      },
    }) as StateStore;
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d', POLL_INTERVAL: '1s' },
      clock.now(),
    );
    const definitions = streamDefinitions('main', settings);
    const publisher = new CollectingPublisher();
    const outcomes: PollOutcome[] = [];
    const errors: unknown[] = [];
    const held: HeldStream[] = [];
    const resumed: { streamId: string; failures: number }[] = [];
    const started = startPollLoop({
      definitions,
      deps: {
        store,
        client,
        publisher,
        clock,
        windows: settings.windows,
        pageCount: settings.pageCount,
        solePoller: true,
        // As in the local runtime: what a window stored is passed over when read again.
        overlapMemory: new OverlapMemory(),
      },
      owner: 'local',
      tickMs: TICK_MS,
      onOutcome: (outcome) => outcomes.push(outcome),
      onError: (error) => errors.push(error),
      onStreamHeld: (stream) => held.push({ ...stream, retryAt: stream.retryAt - clock.now() }),
      onStreamResumed: (stream) => resumed.push(stream),
      ...options,
    });
    loop = started;
    return { loop: started, client, real, publisher, outcomes, errors, held, resumed };
  };

  it('holds a stream back by its backoff in memory, asks the connector only then, and resumes within a step with nothing lost', async () => {
    const { client, real, publisher, outcomes, errors, held, resumed } = startLoop();
    // The first sync, then a live poll or two, with room on the disk.
    await runFor(3_000);
    const before = (await real.getStream(STREAM))!;
    expect(before).toMatchObject({ initialSyncDone: true, consecutiveFailures: 0 });
    expect(errors).toEqual([]);

    // The disk fills; meanwhile customers change.
    diskFull(true);
    const model = sim.controls.model;
    const changed = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, 5)
      .map((entry) => entry.record.Id);
    for (const id of changed) model.update(model.customers, 'customer', id, { Notes: 'full' });
    requests = 0;
    const outcomesBefore = outcomes.length;
    await runFor(30_000);
    const failedRequests = requests;

    // Backoff from a 1 s interval: tries at about 0, 1, 3, 7 and 15 s (the next at 31 s), not
    // at every 250 ms tick (120 of them), each a request or two.
    expect(failedRequests).toBeGreaterThanOrEqual(5);
    expect(failedRequests).toBeLessThanOrEqual(5 * 2);
    expect(held.map(({ failures, retryAt }) => [failures, retryAt])).toEqual([
      [1, 1_000],
      [2, 2_000],
      [3, 4_000],
      [4, 8_000],
      [5, 16_000],
    ]);
    for (const stream of held) {
      expect(stream.streamId).toBe(STREAM);
      expect(stream.error).toMatch(/^DynamoDB \w+ on table change-bridge failed: .*No space left/);
    }
    expect(failedRequests).toBeGreaterThanOrEqual(held.length);
    expect(failedRequests).toBeLessThanOrEqual(held.length * 2);
    expect(errors).toEqual([]);
    // Nothing stored meanwhile: the stream's state is the one before the disk filled.
    diskFull(false);
    expect(await real.getStream(STREAM)).toEqual(before);
    expect(outcomes.length).toBe(outcomesBefore);

    // Room again: polled within one backoff step (16 s after the last try), every change published.
    const newEvents = publisher.events.length;
    await runFor(17_000);
    expect(outcomes.slice(outcomesBefore)).toContainEqual(
      expect.objectContaining({ kind: 'polled', streamId: STREAM }),
    );
    const updated = publisher.events
      .slice(newEvents)
      .filter((event) => event.type === 'customer.updated')
      .map((event) => event.subject);
    expect(new Set(updated)).toEqual(new Set(changed));
    expect(resumed).toEqual([{ streamId: STREAM, failures: 5 }]);
    const after = (await real.getStream(STREAM))!;
    expect(after).toMatchObject({ consecutiveFailures: 0 });
    expect(after.watermark! > before.watermark!).toBe(true);
    await loop!.stop();
    loop = undefined;
    await client.close();
  }, 120_000);

  it('polls a held stream within seconds of the store taking writes again, not after its backoff, and streams list can tell it waits', async () => {
    const writable: number[] = [];
    const {
      loop: running,
      client,
      real,
      outcomes,
      held,
      resumed,
    } = startLoop({
      probeWrites: storeWriteProbe(dynamo.client, TABLE, clock),
      onStoreWritable: (released) => writable.push(released),
    });
    await runFor(3_000);
    const before = (await real.getStream(STREAM))!;
    expect(before).toMatchObject({ initialSyncDone: true, consecutiveFailures: 0 });

    // A full disk for 72 s: tries at about 0, 1, 3, 7, 15, 31 and 63 s, the next due 64 s after
    // the last, some 55 s after the disk has room again.
    diskFull(true);
    await runFor(72_000);
    expect(held.at(-1)).toMatchObject({ failures: 7, retryAt: 64_000 });
    const waiting = running.held().get(STREAM);
    expect(waiting).toMatchObject({ streamId: STREAM, failures: 7 });
    expect(waiting!.retryAt).toBeGreaterThan(clock.now());
    expect(waiting!.error).toMatch(/No space left/);

    // Room again: polled within a probe's wait and a tick, where its backoff had a minute left.
    diskFull(false);
    const outcomesBefore = outcomes.length;
    await runFor(HELD_STORE_PROBE_MS + 2 * TICK_MS);
    expect(writable).toEqual([1]);
    expect(outcomes.slice(outcomesBefore)).toContainEqual(
      expect.objectContaining({ kind: 'polled', streamId: STREAM }),
    );
    expect(resumed).toEqual([{ streamId: STREAM, failures: 7 }]);
    expect(running.held().size).toBe(0);
    expect(await real.getStream(STREAM)).toMatchObject({ consecutiveFailures: 0 });
    await running.stop();
    loop = undefined;
    await client.close();
  }, 120_000);
});
