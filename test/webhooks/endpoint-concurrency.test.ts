import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import {
  afterPredecessors,
  FORGOTTEN_AFTER_MS,
  OVERDUE_PREDECESSOR_WAIT_MS,
} from '../../shared/webhooks/waiting-deliveries.ts';
import { startRealTimeFixture } from './support/fixture.ts';
import { changeEvent, type createHarness, envelope, eventIdOf } from './support/harness.ts';
import { peakInFlight } from './support/peak-in-flight.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const setup = (
  decide?: (request: ReceivedRequest) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) => startRealTimeFixture(cleanup, decide, options);

/** A store whose first read of an endpoint's state hangs until released (busy with writes). */
function storeHoldingFirstEndpointRead() {
  const store = new MemoryWebhookStore();
  const read = store.getEndpointState.bind(store);
  let releaseRead!: () => void;
  const held = new Promise<void>((resolve) => {
    releaseRead = resolve;
  });
  let reads = 0;
  store.getEndpointState = async (id) => {
    if (reads++ === 0) await held;
    return read(id);
  };
  return { store, releaseRead };
}

/**
 * A scheduler whose endpoint runs one delivery at a time, the order work starts in, and a first
 * delivery held until `release`, so the work asked meanwhile waits in the endpoint's line.
 */
function oneAtATime() {
  const scheduler = new EndpointScheduler(new ManualClock(0));
  const started: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { scheduler, started, held, release: () => release(), settings: { maxConcurrency: 1 } };
}

describe('deliveries to one endpoint', () => {
  it('keeps up to 16 in flight at once to one endpoint', async () => {
    const spans: { start: number; end: number }[] = [];
    const { harness, subscribe } = await setup((request) => {
      spans.push({ start: request.at, end: request.at + 200 });
      return { kind: 'respond', status: 200, delayMs: 200 };
    });
    await subscribe('/slowish');
    for (let n = 0; n < 40; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(40);
    expect(spans).toHaveLength(40);
    expect(peakInFlight(spans)).toBe(16);
  });

  it('starts no new request for 2 s after a 429 with Retry-After 2, whatever was in flight', async () => {
    let pausedAt = 0;
    const { receiver, harness, subscribe } = await setup((request) => {
      if (pausedAt === 0 && request.headers['webhook-id'] === eventIdOf(3)) {
        pausedAt = Date.now();
        return { kind: 'respond', status: 429, headers: { 'retry-after': '2' } };
      }
      return { kind: 'respond', status: 200, delayMs: 100 };
    });
    await subscribe('/busy');
    for (let n = 0; n < 60; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    const started = Date.now();
    const delivered = () => new Set(receiver.log.map((r) => r.headers['webhook-id'])).size;
    // Until every event arrived (past the pause: more wait than the 16 in flight), 6 s at most.
    while (Date.now() - started < 6_000 && delivered() < 60) {
      await harness.drainVisible(10);
      await systemClock.sleep(50);
    }
    // Requests already sent when the 429 came back may still arrive; none starts later until 2 s.
    const tooEarly = receiver.log.filter((r) => r.at > pausedAt + 150 && r.at < pausedAt + 2_000);
    expect(pausedAt).toBeGreaterThan(0);
    expect(tooEarly).toEqual([]);
    expect(delivered()).toBe(60);
  }, 20_000);

  it('delivers a subject’s 5 updates in order, one at a time, while other subjects run alongside', async () => {
    // Requests arrived and not yet answered, at each arrival (this one included).
    let peakInFlight = 0;
    const { receiver, harness, subscribe } = await setup(() => {
      peakInFlight = Math.max(peakInFlight, receiver.log.length - receiver.answered.length);
      return { kind: 'respond', status: 200, delayMs: 50 };
    });
    await subscribe('/ordered');
    for (let n = 0; n < 25; n++) {
      const subject = n % 5 === 0 ? 'c-same' : `c-other-${n}`;
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { subject })));
    }
    await harness.drainVisible(25);
    const same = receiver.log.filter((r) => JSON.parse(r.body).subject === 'c-same');
    expect(same.map((r) => r.headers['webhook-id'])).toEqual(
      [0, 5, 10, 15, 20].map((n) => eventIdOf(n)),
    );
    for (let i = 1; i < same.length; i++)
      expect(same[i]!.at - same[i - 1]!.at).toBeGreaterThanOrEqual(45);
    // The 20 other subjects went concurrently: requests arrived while others were unanswered.
    expect(peakInFlight).toBeGreaterThan(1);
  });

  it('takes no slot while a batch still reads the endpoint’s state: another batch’s delivery goes first', async () => {
    const { store, releaseRead } = storeHoldingFirstEndpointRead();
    const { receiver, harness, subscribe } = await setup(undefined, { store });
    await subscribe('/one', { maxConcurrency: 1 });
    const batch = (n: number) => [
      { messageId: `m${n}`, body: envelope(changeEvent(eventIdOf(n))) },
    ];
    const first = processDispatchBatch(batch(1), harness.deps);
    await systemClock.sleep(20);
    const second = processDispatchBatch(batch(2), harness.deps);
    const started = Date.now();
    while (receiver.log.length === 0 && Date.now() - started < 2_000) await systemClock.sleep(10);
    // The second batch was delivered while the first still waited for its read.
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(2)]);
    releaseRead();
    await Promise.all([first, second]);
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(2), eventIdOf(1)]);
  });

  it('keeps a subject’s order across batches: a later batch’s event waits while an earlier one still reads', async () => {
    // As in the test above, but both events are about the same customer.
    const { store, releaseRead } = storeHoldingFirstEndpointRead();
    const { receiver, harness, subscribe } = await setup(undefined, { store });
    await subscribe('/one');
    const batch = (n: number) => [
      { messageId: `m${n}`, body: envelope(changeEvent(eventIdOf(n), { subject: 'c-same' })) },
    ];
    const first = processDispatchBatch(batch(1), harness.deps);
    await systemClock.sleep(20);
    const second = processDispatchBatch(batch(2), harness.deps);
    await systemClock.sleep(300);
    expect(receiver.log).toEqual([]);
    releaseRead();
    await Promise.all([first, second]);
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(1), eventIdOf(2)]);
  });

  it('lets an endpoint answering in 2 s not slow a second endpoint', async () => {
    // For each request to /fast, whether /slow had answered any request when it arrived.
    const fastAfterSlowAnswer: boolean[] = [];
    const { receiver, harness, subscribe } = await setup(
      (request) => {
        if (request.path === '/slow') return { kind: 'respond', status: 200, delayMs: 2_000 };
        fastAfterSlowAnswer.push(receiver.answered.some((r) => r.path === '/slow'));
        return { kind: 'respond', status: 200 };
      },
      { timeoutMs: 5_000 },
    );
    await subscribe('/slow', { scope: { chainIds: ['chain-slow'] } });
    await subscribe('/fast', { scope: { chainIds: ['chain-fast'] } });
    for (let n = 0; n < 40; n++) {
      const chainId = n % 2 === 0 ? 'chain-slow' : 'chain-fast';
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { chainId })));
    }
    await harness.drainVisible(40);
    const fast = receiver.log.filter((r) => r.path === '/fast');
    expect(fast).toHaveLength(20);
    // Every one before /slow's first answer: none waited behind the slow endpoint's requests.
    expect(fastAfterSlowAnswer).toEqual(fast.map(() => false));
  }, 20_000);
});

describe('EndpointScheduler', () => {
  it('halves an endpoint’s concurrency on 503 and grows it back by one per limit of successes', () => {
    const scheduler = new EndpointScheduler(new ManualClock(0));
    void scheduler.run('e', 's', {}, async () => undefined);
    expect(scheduler.limitOf('e')).toBe(16);
    scheduler.record('e', 'overloaded');
    expect(scheduler.limitOf('e')).toBe(8);
    scheduler.record('e', 'overloaded');
    expect(scheduler.limitOf('e')).toBe(4);
    for (let i = 0; i < 4; i++) scheduler.record('e', 'success');
    expect(scheduler.limitOf('e')).toBe(5);
    for (let i = 0; i < 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15; i++)
      scheduler.record('e', 'success');
    expect(scheduler.limitOf('e')).toBe(16);
    scheduler.record('e', 'success');
    expect(scheduler.limitOf('e')).toBe(16);
  });

  it('halves once for the requests that were in flight together, again for one sent after', async () => {
    const clock = new ManualClock(0);
    const scheduler = new EndpointScheduler(clock);
    void scheduler.run('e', 's', {}, async () => undefined);
    // 16 requests sent at 0 all time out at 10 s: one overload, not sixteen.
    await clock.set(10_000);
    for (let i = 0; i < 16; i++) scheduler.record('e', 'overloaded', 0);
    expect(scheduler.limitOf('e')).toBe(8);
    // One sent after that halving that is answered 503 is a new overload.
    await clock.set(12_000);
    scheduler.record('e', 'overloaded', 10_500);
    expect(scheduler.limitOf('e')).toBe(4);
    scheduler.record('e', 'overloaded', 11_000);
    expect(scheduler.limitOf('e')).toBe(4);
  });

  it('tells a subject’s delivery when the deliveries noted before it are due, never its own or later ones', async () => {
    const clock = new ManualClock(1_000);
    const scheduler = new EndpointScheduler(clock);
    scheduler.noteWaiting('e', 's', 'd1', 10_000);
    scheduler.noteWaiting('e', 's', 'd2', 10_001);
    expect(scheduler.dueAhead('e', 's', 'd1')).toBeUndefined();
    expect(scheduler.dueAhead('e', 's', 'd2')).toBe(10_000);
    // A delivery never noted comes after all of them; another subject or endpoint waits for none.
    expect(scheduler.dueAhead('e', 's', 'd3')).toBe(10_001);
    expect(scheduler.dueAhead('e', 'other', 'd3')).toBeUndefined();
    expect(scheduler.dueAhead('e2', 's', 'd3')).toBeUndefined();
    // A retry moves d1 later; it keeps its place before d2.
    scheduler.noteWaiting('e', 's', 'd1', 70_000);
    expect(scheduler.dueAhead('e', 's', 'd2')).toBe(70_000);
    scheduler.noteSettled('e', 's', 'd1');
    expect(scheduler.dueAhead('e', 's', 'd2')).toBeUndefined();
    expect(scheduler.dueAhead('e', 's', 'd3')).toBe(10_001);
  });

  it('tells the backfill deliveries a subject’s later delivery waits behind, each once until noted again', () => {
    const scheduler = new EndpointScheduler(new ManualClock(0));
    scheduler.noteWaiting('e', 's', 'd1', 5_000, 'bulk');
    scheduler.noteWaiting('e', 's', 'd2', 6_000);
    scheduler.noteWaiting('e', 's', 'd3', 7_000, 'bulk');
    expect(scheduler.takeBulkAhead('e', 's', 'd2')).toEqual(['d1']);
    expect(scheduler.takeBulkAhead('e', 's', 'd4')).toEqual(['d3']);
    expect(scheduler.takeBulkAhead('e', 's', 'd4')).toEqual([]);
    // Noted again as a backfill's (its next wait): told again; settled, never.
    scheduler.noteWaiting('e', 's', 'd1', 9_000, 'bulk');
    expect(scheduler.takeBulkAhead('e', 's', 'd4')).toEqual(['d1']);
    // Noted last as live work: never told, whatever an earlier note said.
    scheduler.noteWaiting('e', 's', 'd2', 9_000, 'bulk');
    scheduler.noteWaiting('e', 's', 'd2', 9_500);
    expect(scheduler.takeBulkAhead('e', 's', 'd4')).toEqual([]);
    scheduler.noteWaiting('e', 's', 'd3', 9_000, 'bulk');
    scheduler.noteSettled('e', 's', 'd3');
    expect(scheduler.takeBulkAhead('e', 's', 'd4')).toEqual([]);
    expect(scheduler.firstWaiting('e', 's')).toEqual({ deliveryId: 'd1', dueAt: 9_000 });
  });

  it('names a waiting delivery long overdue for a store check, and does not forget it on lateness alone', async () => {
    const clock = new ManualClock(0);
    const scheduler = new EndpointScheduler(clock);
    scheduler.noteWaiting('e', 's', 'd1', 5_000);
    await clock.advance(5_000 + FORGOTTEN_AFTER_MS);
    expect(scheduler.dueAhead('e', 's', 'd2')).toBe(5_000);
    expect(scheduler.overdueAhead('e', 's', 'd2')).toEqual([]);
    await clock.advance(1);
    // A backlogged queue may still hand its retry over: DispatchBatch.notBefore asks the store.
    expect(scheduler.dueAhead('e', 's', 'd2')).toBe(5_000);
    expect(scheduler.overdueAhead('e', 's', 'd2')).toEqual(['d1']);
    expect(scheduler.overdueAhead('e', 's', 'd1')).toEqual([]);
    expect(afterPredecessors(10_000, 5_000)).toBe(10_001);
    expect(afterPredecessors(5_000, 10_000)).toBe(10_000 + OVERDUE_PREDECESSOR_WAIT_MS);
  });

  it('hands long-overdue waiting deliveries of subjects nobody asks about to a store check, and forgets them once settled', async () => {
    const clock = new ManualClock(0);
    const scheduler = new EndpointScheduler(clock);
    scheduler.noteWaiting('e', 'forgotten', 'd0', 1_000);
    await clock.advance(1_000 + FORGOTTEN_AFTER_MS + 1);
    const overdue = [{ endpoint: 'e', subject: 'forgotten', deliveryId: 'd0' }];
    // The last sweep is 15 minutes old: a batch's look sweeps (DispatchBatch.flush asks the
    // store), naming the overdue one though nobody asked about its subject; once.
    expect(scheduler.takeLongOverdue()).toEqual(overdue);
    expect(scheduler.takeLongOverdue()).toEqual([]);
    for (let n = 1; n < 1000; n++)
      scheduler.noteWaiting('e', `s${n}`, `d${n}`, clock.now() + 5_000);
    expect(scheduler.takeLongOverdue()).toEqual([]);
    // The thousandth note since that sweep sweeps too: still noted until known to be settled.
    scheduler.noteWaiting('e', 's1000', 'd1000', clock.now() + 5_000);
    expect(scheduler.takeLongOverdue()).toEqual(overdue);
    expect(scheduler.waitingDeliveries).toBe(1001);
    scheduler.noteSettled('e', 'forgotten', 'd0');
    expect(scheduler.waitingDeliveries).toBe(1000);
    expect(scheduler.dueAhead('e', 'forgotten', 'd-next')).toBeUndefined();
  });

  it('halves on a real 503 from the endpoint', async () => {
    const { harness, subscribe } = await setup(() => ({ kind: 'respond', status: 503 }));
    const { subscription } = await subscribe('/overloaded');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    expect(harness.deps.scheduler.limitOf(endpointOfUrl(subscription.url))).toBe(8);
  });

  it('starts live work before bulk work waiting at the same endpoint, and a subject’s work in order', async () => {
    const { scheduler, started, held, release, settings } = oneAtATime();
    const runs = [
      scheduler.run('e', 'first', settings, () => held),
      ...['b1', 'b2'].map((name) =>
        scheduler.run(
          'e',
          name,
          settings,
          async () => {
            started.push(name);
          },
          'bulk',
        ),
      ),
      scheduler.run('e', 'l1', settings, async () => {
        started.push('l1');
      }),
      // A second live task of a subject already waiting in the bulk lane keeps its place behind it.
      scheduler.run('e', 'b1', settings, async () => {
        started.push('b1 again');
      }),
    ];
    release();
    await Promise.all(runs);
    expect(started).toEqual(['l1', 'b1', 'b1 again', 'b2']);
  });

  it("starts a subject's bulk work ahead of other bulk work once live work of that subject waits behind it", async () => {
    // A backfill's `created` of `s` waits behind other bulk work; a live change of `s` arrives:
    // `s`'s `created` goes next, then its change, and only then the rest of the bulk line.
    const { scheduler, started, held, release, settings } = oneAtATime();
    const task = (subject: string, name: string, lane: 'live' | 'bulk') =>
      scheduler.run(
        'e',
        subject,
        settings,
        async () => {
          started.push(name);
        },
        lane,
      );
    const runs = [
      scheduler.run('e', 'first', settings, () => held),
      task('b1', 'b1 created', 'bulk'),
      task('b2', 'b2 created', 'bulk'),
      task('s', 's created', 'bulk'),
      task('b3', 'b3 created', 'bulk'),
      task('s', 's updated', 'live'),
    ];
    release();
    await Promise.all(runs);
    expect(started).toEqual(['s created', 's updated', 'b1 created', 'b2 created', 'b3 created']);
  });

  it('spaces requests to honour a rate limit in deliveries per second', async () => {
    const clock = new ManualClock(0);
    const scheduler = new EndpointScheduler(clock);
    const startedAt: number[] = [];
    const runs = Array.from({ length: 5 }, (_, i) =>
      scheduler.run('e', `s${i}`, { ratePerSecond: 10 }, async () => {
        startedAt.push(clock.now());
      }),
    );
    await clock.advance(0);
    for (let t = 0; t < 10; t++) await clock.advance(50);
    await Promise.all(runs);
    expect(startedAt).toEqual([0, 100, 200, 300, 400]);
  });
});
