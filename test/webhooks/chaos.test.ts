import { afterAll, describe, expect, it, vi } from 'vitest';
import { seededRandom, systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type ReceivedRequest, type ReceiverAction, startReceiver } from './support/receiver.ts';

const EVENTS = 1000;
const ENDPOINTS = 5;
const BATCH_SIZE = 50;

/**
 * Requests already on their way when a 429 was answered may arrive this long after it: the
 * client and the receiver share this process, so on a loaded machine a request the client
 * started before it read the 429 can reach the receiver hundreds of ms after the answer.
 */
const IN_FLIGHT_GRACE_MS = 1_000;
/** The receiver's `Retry-After` in seconds: the check covers the pause after the grace. */
const RETRY_AFTER_SECONDS = 2;
/** The receiver's mark on each of its 429 answers (its number), echoed in the attempt's result. */
const PAUSE_HEADER = 'x-chaos-pause';

/** A 429 the receiver answered: on `path`, at `from`, asking for a pause until `until`. */
interface AnsweredPause {
  id: string;
  path: string;
  from: number;
  until: number;
}

/**
 * The receiver misbehaves at random (seeded): 500s, 429 with `Retry-After: 2`, hangs past
 * the client timeout and dropped connections. It keeps its own log on its own clock and notes
 * each 429 it answers (its path, when it answered, when its Retry-After passes), marking the
 * answer with {@link PAUSE_HEADER} so the test can tell which of them the dispatcher received:
 * on a loaded machine the receiver, in this process, may read a request only after the client
 * gave up on it (its 300 ms timeout), and a 429 answered then reaches nobody and pauses nothing.
 */
function chaoticReceiver() {
  const random = seededRandom(2026);
  const pauses: AnsweredPause[] = [];
  const answers = { ok: 0, error500: 0, tooMany: 0, hang: 0, drop: 0 };
  const decide = (request: ReceivedRequest): ReceiverAction => {
    const roll = random();
    if (roll < 0.06) {
      answers.error500 += 1;
      return { kind: 'respond', status: 500, body: 'boom' };
    }
    if (roll < 0.07) {
      answers.tooMany += 1;
      const id = String(answers.tooMany);
      // The deadline counts from the moment the receiver answers (now, on its own clock).
      const from = Date.now();
      pauses.push({ id, path: request.path, from, until: from + RETRY_AFTER_SECONDS * 1000 });
      return {
        kind: 'respond',
        status: 429,
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS), [PAUSE_HEADER]: id },
      };
    }
    if (roll < 0.08) {
      answers.hang += 1;
      return { kind: 'hang' };
    }
    if (roll < 0.1) {
      answers.drop += 1;
      return { kind: 'drop' };
    }
    answers.ok += 1;
    return { kind: 'respond', status: 200 };
  };
  return { decide, pauses, answers };
}

/**
 * The requests of `log` that reached an endpoint before the Retry-After of one of `pauses` had
 * passed and after the requests in flight at that 429 could have arrived (deliveries to one
 * endpoint run concurrently: the pause stops new requests, not those already sent).
 */
function earlyRequests(log: readonly ReceivedRequest[], pauses: readonly AnsweredPause[]) {
  const early: { path: string; at: number; until: number }[] = [];
  for (const request of log) {
    const pause = pauses.find(
      (p) =>
        p.path === request.path && request.at > p.from + IN_FLIGHT_GRACE_MS && request.at < p.until,
    );
    if (pause) early.push({ path: request.path, at: request.at, until: pause.until });
  }
  return early;
}

describe('chaos: a misbehaving receiver', () => {
  const chaos = chaoticReceiver();
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('gets all 1,000 events, each with a stable webhook-id, and nothing before its Retry-After', async () => {
    const receiver = await startReceiver(chaos.decide);
    const harness = createHarness({ clock: systemClock, timeoutMs: 300, seed: 11 });
    // What the dispatcher's requests came to, as it received them.
    const sends = vi.spyOn(harness.sender, 'send');
    cleanup.push(
      () => harness.sender.close(),
      () => receiver.close(),
      async () => sends.mockRestore(),
    );
    for (let e = 0; e < ENDPOINTS; e++) {
      const path = `/endpoint-${e}`;
      const { secret } = await harness.service.createSubscription({
        url: receiver.url(path),
        scope: { chainIds: [`chain-${e}`] },
        retrySchedule: Array(15).fill(200),
      });
      receiver.secrets.set(path, [secret]);
    }
    for (let n = 0; n < EVENTS; n++) {
      harness.queue.sendRaw(
        envelope(changeEvent(eventIdOf(n), { chainId: `chain-${n % ENDPOINTS}` })),
      );
    }

    // Plays Lambda's event source mapping: one batch at a time, failures back on the queue.
    const started = Date.now();
    while (harness.queue.size > 0) {
      const batch = harness.queue.receive(BATCH_SIZE);
      if (batch.length === 0) {
        const wait = Math.max(5, (harness.queue.nextVisibleAt() ?? Date.now()) - Date.now());
        await systemClock.sleep(Math.min(wait, 100));
        continue;
      }
      const result = await processDispatchBatch(batch, harness.deps);
      expect(result.batchItemFailures).toEqual([]);
    }
    const elapsedMs = Date.now() - started;

    const byId = new Map<string, ReceivedRequest[]>();
    for (const request of receiver.log) {
      const id = request.headers['webhook-id'] ?? '';
      byId.set(id, [...(byId.get(id) ?? []), request]);
    }
    // Every event reached its endpoint; every retry carried the event's own id and body.
    expect(byId.size).toBe(EVENTS);
    for (const [id, requests] of byId) {
      expect(new Set(requests.map((r) => r.path)).size).toBe(1);
      for (const request of requests) expect(JSON.parse(request.body).id).toBe(id);
    }
    const deliveries = (
      await Promise.all(
        (
          await harness.service.listSubscriptions()
        ).map((s) => harness.store.listDeliveries({ subscriptionId: s.id, limit: 10_000 })),
      )
    ).flat();
    expect(deliveries).toHaveLength(EVENTS);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    // At least once: a 200 that reaches the dispatcher after its 300 ms timeout (a loaded
    // machine) counts as a failure, and the retry is answered 200 again, with the same id.
    expect(chaos.answers.ok).toBeGreaterThanOrEqual(EVENTS);
    // Every request verified with the official library.
    expect(receiver.log.every((r) => r.verifiedWith === 1)).toBe(true);
    // No request reached an endpoint before a Retry-After the dispatcher received had passed
    // (the receiver's own log and clock). A 429 answered to a request the client had already
    // given up on (its timeout) reached nobody: the dispatcher cannot keep a pause it never got.
    const received = new Set<string>();
    for (const settled of sends.mock.settledResults) {
      if (settled.type !== 'fulfilled' || settled.value.kind !== 'response') continue;
      const id = settled.value.headers[PAUSE_HEADER];
      if (settled.value.status === 429 && id !== undefined) received.add(id);
    }
    const pauses = chaos.pauses.filter((pause) => received.has(pause.id));
    expect(earlyRequests(receiver.log, pauses)).toEqual([]);
    expect(pauses.length).toBeGreaterThan(3);
    // The chaos really happened.
    expect(chaos.answers.tooMany).toBeGreaterThan(3);
    expect(chaos.answers.hang).toBeGreaterThan(3);
    expect(chaos.answers.drop).toBeGreaterThan(3);
    expect(chaos.answers.error500).toBeGreaterThan(3);
    expect(receiver.log.length).toBeGreaterThan(EVENTS);
    console.info(`chaos: ${receiver.log.length} requests in ${elapsedMs} ms`, chaos.answers);
  }, 60_000);
});
