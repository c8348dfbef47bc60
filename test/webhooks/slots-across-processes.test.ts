import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, seededRandom, systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DynamoDbEndpointSlots } from '../../shared/webhooks/dynamodb-endpoint-slots.ts';
import { bulkShare } from '../../shared/webhooks/endpoint-lane.ts';
import { SLOT_DEFER_MS, SLOT_WAIT_LIMIT_MS } from '../../shared/webhooks/endpoint-lane-pump.ts';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import { MemoryEndpointSlots, SLOT_HOLD_MS } from '../../shared/webhooks/endpoint-slots.ts';
import { SLOT_IDLE_RELEASE_MS, SLOT_RETRY_MS } from '../../shared/webhooks/held-slots.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';
import { peakInFlight } from './support/peak-in-flight.ts';

/** Work that runs until `finish` is called; `started` tells whether it began. */
function heldWork() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const work = { started: false, finish, run: async () => {} };
  work.run = async () => {
    work.started = true;
    await done;
  };
  return work;
}

/** Two processes' schedulers sharing one endpoint's slots (as two dispatcher containers do). */
function twoProcesses() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const slots = new MemoryEndpointSlots(clock);
  return {
    clock,
    a: new EndpointScheduler(clock, slots.holder('a')),
    b: new EndpointScheduler(clock, slots.holder('b')),
  };
}

describe('an endpoint’s concurrency across processes', () => {
  it('starts no more requests in two processes together than the endpoint’s maximum', async () => {
    const { clock, a, b } = twoProcesses();
    const inA = Array.from({ length: 4 }, heldWork);
    const inB = Array.from({ length: 4 }, heldWork);
    const running = [
      ...inA.map((work, n) => a.run('e', `a${n}`, { maxConcurrency: 4 }, work.run)),
      ...inB.map((work, n) => b.run('e', `b${n}`, { maxConcurrency: 4 }, work.run)),
    ];
    await clock.advance(0);
    expect(inA.filter((work) => work.started)).toHaveLength(4);
    expect(inB.filter((work) => work.started)).toHaveLength(0);
    // B asks again every SLOT_RETRY_MS; A's slots come back once its work is done and it has
    // been idle for SLOT_IDLE_RELEASE_MS.
    for (const work of inA) work.finish();
    await clock.advance(SLOT_IDLE_RELEASE_MS - 1);
    expect(inB.filter((work) => work.started)).toHaveLength(0);
    await clock.advance(SLOT_RETRY_MS + 1);
    expect(inB.filter((work) => work.started)).toHaveLength(4);
    for (const work of inB) work.finish();
    await Promise.all(running);
  });

  it('leaves a process that waits its fair part when another asks again (its next invocation)', async () => {
    const { clock, a, b } = twoProcesses();
    const settings = { maxConcurrency: 4 };
    const first = Array.from({ length: 4 }, heldWork);
    const firstRuns = first.map((work, n) => a.run('e', `a${n}`, settings, work.run));
    await clock.advance(0);
    const waiting = Array.from({ length: 2 }, heldWork);
    const waitingRuns = waiting.map((work, n) => b.run('e', `b${n}`, settings, work.run));
    await clock.advance(0);
    expect(waiting.filter((work) => work.started)).toHaveLength(0);
    // A's invocation ends and gives its slots back; its next one asks before B asks again.
    for (const work of first) work.finish();
    await Promise.all(firstRuns);
    await a.releaseIdleSlots();
    const second = Array.from({ length: 4 }, heldWork);
    const secondRuns = second.map((work, n) => a.run('e', `a${n}`, settings, work.run));
    await clock.advance(0);
    expect(second.filter((work) => work.started)).toHaveLength(2);
    await clock.advance(SLOT_RETRY_MS);
    expect(waiting.filter((work) => work.started)).toHaveLength(2);
    for (const work of [...second, ...waiting]) work.finish();
    await Promise.all([...secondRuns, ...waitingRuns]);
  });

  it('gives slots back at once when told to (a Lambda invocation’s end)', async () => {
    const { clock, a, b } = twoProcesses();
    const first = heldWork();
    const running = a.run('e', 's1', { maxConcurrency: 1 }, first.run);
    await clock.advance(0);
    first.finish();
    await running;
    await a.releaseIdleSlots();
    const second = heldWork();
    const next = b.run('e', 's2', { maxConcurrency: 1 }, second.run);
    await clock.advance(0);
    expect(second.started).toBe(true);
    second.finish();
    await next;
  });

  it('renews a share while its work goes on, so it does not lapse to another process', async () => {
    const { clock, a, b } = twoProcesses();
    const long = heldWork();
    const running = a.run('e', 's1', { maxConcurrency: 1 }, long.run);
    await clock.advance(0);
    const waiting = heldWork();
    const next = b.run('e', 's2', { maxConcurrency: 1 }, waiting.run);
    // Past the first hold's end (and short of SLOT_WAIT_LIMIT_MS, when the waiting work would
    // be deferred).
    await clock.advance(1.5 * SLOT_HOLD_MS);
    expect(waiting.started).toBe(false);
    long.finish();
    await running;
    await clock.advance(SLOT_IDLE_RELEASE_MS + SLOT_RETRY_MS);
    expect(waiting.started).toBe(true);
    waiting.finish();
    await next;
  });

  it('spaces a process’s starts by its part of the rate: half the slots, half the rate', async () => {
    const { clock, a, b } = twoProcesses();
    const settings = { maxConcurrency: 4, ratePerSecond: 10 };
    const inB = Array.from({ length: 2 }, heldWork);
    const holding = inB.map((work, n) => b.run('e', `b${n}`, settings, work.run));
    await clock.advance(100);
    const starts: number[] = [];
    const inA = Array.from({ length: 3 }, (_, n) =>
      a.run('e', `a${n}`, settings, async () => {
        starts.push(clock.now());
      }),
    );
    await clock.advance(1000);
    await Promise.all(inA);
    // A holds 2 of 4 slots: 5 per second, one start every 200 ms.
    expect(starts.slice(1).map((at, i) => at - starts[i]!)).toEqual([200, 200]);
    for (const work of inB) work.finish();
    await Promise.all(holding);
  });
});

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('slots-across-processes');
});
afterAll(async () => {
  await table?.stop();
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * How long the gate keeps a full round of requests unanswered: more arriving meanwhile than the
 * round's size would show as a peak above it.
 */
const ROUND_GRACE_MS = 200;
/** How long the gate waits for a round to fill before answering what it holds. */
const ROUND_LIMIT_MS = 5_000;

/**
 * Holds an endpoint's requests and answers them by rounds: once `size` are unanswered (and
 * {@link ROUND_GRACE_MS} later), or {@link ROUND_LIMIT_MS} after the round's first arrived. The
 * peak in flight then counts the requests the senders had out at once, however slowly a loaded
 * host starts them, instead of those that fell within a fixed answer time.
 */
function roundGate(size: number) {
  let round: { release: () => void; released: Promise<void>; held: number } | undefined;
  const newRound = () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const limit = setTimeout(release, ROUND_LIMIT_MS);
    const next = { release, released, held: 0 };
    void released.then(() => {
      clearTimeout(limit);
      // Requests from now on wait for a round of their own.
      if (round === next) round = undefined;
    });
    return next;
  };
  /** The promise the request's answer waits for. */
  return (): Promise<void> => {
    round ??= newRound();
    const current = round;
    current.held += 1;
    if (current.held === size) setTimeout(current.release, ROUND_GRACE_MS);
    return current.released;
  };
}

describe('two dispatcher processes on one table', () => {
  async function deliverThroughTwo(share: boolean) {
    const spans: { start: number; end: number }[] = [];
    const nextAnswer = roundGate(share ? 16 : 32);
    const store = new MemoryWebhookStore();
    const slotsOf = (holder: string) =>
      share
        ? new DynamoDbEndpointSlots({
            client: table.client,
            tableName: table.tableName,
            clock: systemClock,
            random: seededRandom(holder.length),
            holder: `${holder}-${Date.now()}`,
          })
        : undefined;
    const { harness: first, subscribe } = await startDispatchFixture(
      cleanup,
      () => {
        const span = { start: Date.now(), end: Number.POSITIVE_INFINITY };
        spans.push(span);
        const answerWhen = nextAnswer().then(() => {
          span.end = Date.now();
        });
        return { kind: 'respond', status: 200, answerWhen };
      },
      { clock: systemClock, store, scheduler: new EndpointScheduler(systemClock, slotsOf('a')) },
    );
    const second = createHarness({
      clock: systemClock,
      store,
      scheduler: new EndpointScheduler(systemClock, slotsOf('b')),
    });
    cleanup.push(() => second.sender.close());
    await subscribe('/shared');
    for (let n = 0; n < 32; n++) {
      const harness = n % 2 === 0 ? first : second;
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    }
    await Promise.all([first.drainVisible(16), second.drainVisible(16)]);
    return spans;
  }

  it('keeps one endpoint’s 16 across both when they share slots through the table', async () => {
    const spans = await deliverThroughTwo(true);
    expect(spans).toHaveLength(32);
    expect(peakInFlight(spans)).toBe(16);
  }, 20_000);

  it('reaches 32 at once without shared slots (each process counts only its own)', async () => {
    const spans = await deliverThroughTwo(false);
    expect(spans).toHaveLength(32);
    expect(peakInFlight(spans)).toBe(32);
  }, 20_000);
});

describe('live work at an endpoint shared with bulk work', () => {
  it('finds a quarter of the endpoint’s slots left by a process with only bulk work', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const slots = new MemoryEndpointSlots(clock);
    const bulkHolder = slots.holder('bulk');
    let bulkAsks = 0;
    const b = new EndpointScheduler(clock, {
      hold: (endpoint, want, max) => {
        bulkAsks++;
        return bulkHolder.hold(endpoint, want, max);
      },
    });
    const a = new EndpointScheduler(clock, slots.holder('live'));
    const bulkWork = Array.from({ length: 16 }, heldWork);
    const bulkRuns = bulkWork.map((work, n) => b.run('e', `b${n}`, {}, work.run, 'bulk'));
    await clock.advance(0);
    expect(bulkWork.filter((work) => work.started)).toHaveLength(bulkShare(16));
    const liveWork = Array.from({ length: 4 }, heldWork);
    const liveRuns = liveWork.map((work, n) => a.run('e', `a${n}`, {}, work.run));
    await clock.advance(0);
    expect(liveWork.filter((work) => work.started)).toHaveLength(4);
    // Holding its part, the bulk process does not ask again and again.
    const asked = bulkAsks;
    await clock.advance(5 * SLOT_RETRY_MS);
    expect(bulkAsks).toBe(asked);
    expect(bulkWork.filter((work) => work.started)).toHaveLength(12);
    for (const work of [...bulkWork, ...liveWork]) work.finish();
    await Promise.all([...bulkRuns, ...liveRuns]);
  });
});

describe('work that waits too long for slots', () => {
  it('is deferred after SLOT_WAIT_LIMIT_MS instead of waiting on (no request sent, the endpoint not paused)', async () => {
    const clock = new ManualClock(Date.now());
    const slots = new MemoryEndpointSlots(clock);
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, undefined, {
      clock,
      scheduler: new EndpointScheduler(clock, slots.holder('this-container')),
    });
    const { subscription } = await subscribe('/busy');
    // Sixteen other containers hold one slot each of the endpoint's 16 and keep renewing them:
    // a fair part of 16 among 17 is 1, so this container gets none.
    const others = Array.from({ length: 16 }, (_, n) => slots.holder(`other-${n}`));
    const renewOthers = () =>
      Promise.all(others.map((o) => o.hold(endpointOfUrl(subscription.url), 1, 16)));
    await renewOthers();
    const batch = processDispatchBatch(
      [{ messageId: 'm1', body: envelope(changeEvent(eventIdOf(1))) }],
      harness.deps,
    );
    const started = clock.now();
    let settledAt: number | undefined;
    void batch.then(() => {
      settledAt = clock.now();
    });
    for (let waited = 0; settledAt === undefined && waited <= SLOT_WAIT_LIMIT_MS + 10_000; ) {
      if (waited % 10_000 === 0) await renewOthers();
      await clock.advance(1_000);
      waited += 1_000;
    }
    expect(await batch).toEqual({ batchItemFailures: [] });
    expect(settledAt! - started).toBeGreaterThanOrEqual(SLOT_WAIT_LIMIT_MS);
    expect(receiver.log).toEqual([]);
    const [delivery] = await harness.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: 10,
    });
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
    expect(delivery!.nextAttemptAt - clock.now()).toBeGreaterThan(SLOT_DEFER_MS - 2_000);
    expect(harness.deps.scheduler.pausedUntil(endpointOfUrl(subscription.url))).toBeUndefined();
  });
});
