import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLeaseId, pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 29);
});
afterAll(async () => {
  await harness?.close();
});

/** Every snapshot of a stream, tombstones included. */
async function allSnapshots(store: StateStore, streamId: string) {
  const all = [];
  for await (const page of store.scanSnapshots(streamId)) all.push(...page);
  return all;
}

/**
 * The chain connection's payment request stream, polled once, with `extraIds` stored as more
 * of its snapshots, and the clock moved on until its hourly sweep is due (counted from the
 * last one, whichever test ran it).
 */
async function paymentStreamWithSweepDue(extraIds: readonly string[] = []) {
  const definitions = harness
    .definitions()
    .filter((d) => !d.streamId.startsWith('hotel:'))
    .map((d) => ({ ...d, phaseMs: 0 }));
  const payment = definitions.find((d) => d.spec.entityType === 'paymentRequest')!;
  const deps = harness.deps('chain');
  await pollConnectionStreams([payment.streamId], definitions, deps, 't');
  const now = harness.clock.now();
  await deps.store.putSnapshots(
    payment.streamId,
    extraIds.map((entityId) => ({ entityId, hash: 'h', record: {}, updatedAt: now })),
  );
  const swept = (await deps.store.getStream(payment.streamId))!.lastSweepAt!;
  await harness.clock.advance(Math.max(0, swept - harness.clock.now()) + 61 * 60_000);
  return { definitions, payment, deps, swept };
}

/**
 * `client` with its sweep requests (by PaymentRequestIds) answered by `answer`, given the ids,
 * the request's signal and the real answer; every other request goes through.
 */
function answeringSweeps(
  client: PollDeps['client'],
  answer: (
    ids: string[],
    signal: AbortSignal | undefined,
    asked: () => AsyncIterable<unknown>,
  ) => AsyncIterable<unknown>,
): PollDeps['client'] {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'paginate' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const ids = (args[1] as { PaymentRequestIds?: string[] } | undefined)?.PaymentRequestIds;
        if (!ids) return value.apply(target, args);
        const signal = (args[2] as { signal?: AbortSignal } | undefined)?.signal;
        return answer(ids, signal, () => value.apply(target, args) as AsyncIterable<unknown>);
      };
    },
  });
}

/** One job of `streamId` with a deadline `deadlineInMs` away, the clock driven until it ends. */
async function runJobToEnd(
  streamId: string,
  definitions: Parameters<typeof pollConnectionStreams>[1],
  deps: PollDeps,
  deadlineInMs: number,
): Promise<void> {
  let ended = false;
  const job = pollConnectionStreams(
    [streamId],
    definitions,
    { ...deps, deadline: harness.clock.now() + deadlineInMs },
    't',
    harness.clock.now(),
  ).finally(() => {
    ended = true;
  });
  for (let step = 0; !ended && step < 600; step++) await harness.clock.advance(1_000);
  await job;
}

/** `store`, telling `onCall` of every method called on it, with its arguments. */
function observedStore(
  store: StateStore,
  onCall: (method: keyof StateStore, args: unknown[]) => void,
): StateStore {
  return new Proxy(store, {
    get(target, property: keyof StateStore) {
      const value = target[property];
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        onCall(property, args);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('one poll job of a connection', () => {
  it('polls every listed stream of the connection with one client, and skips streams it no longer defines', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const [first, second] = definitions;
    const deps = harness.deps('hotel');

    const { outcomes } = await pollConnectionStreams(
      [first!.streamId, 'hotel:gone', second!.streamId],
      definitions,
      deps,
      'test',
    );

    expect(outcomes.map((o) => `${o.streamId}/${o.kind}`)).toEqual([
      `${first!.streamId}/polled`,
      `${second!.streamId}/polled`,
    ]);
    expect(await harness.deps('hotel').store.getStream(first!.streamId)).toMatchObject({
      lastSuccessAt: expect.any(Number),
    });
  });

  it('starts no stream after the deadline: the next planner run finds it still due', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const deps = { ...harness.deps('hotel'), deadline: harness.clock.now() };
    await harness.deps('hotel').store.deleteStream(definitions[0]!.streamId);

    const { outcomes } = await pollConnectionStreams(
      [definitions[0]!.streamId],
      definitions,
      deps,
      't',
    );
    expect(outcomes).toEqual([
      { kind: 'skipped', streamId: definitions[0]!.streamId, reason: 'stopped' },
    ]);
  });

  it('leaves streams due after dueBy for the next job, and says when the connection is next due', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const deps = harness.deps('hotel');
    const now = harness.clock.now();
    for (const d of definitions) await deps.store.deleteStream(d.streamId);
    await pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      deps,
      't',
    );
    const states = await Promise.all(definitions.map((d) => deps.store.getStream(d.streamId)));
    const earliest = Math.min(...states.map((s) => s!.nextDueAt));

    const early = await pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      deps,
      't',
      now,
    );
    expect(early.outcomes).toEqual([]);
    expect(early.nextDueAt).toBe(earliest);
  });

  it('polls a stream whose kept state is due after its current interval (re-added with a shorter one) within that interval', async () => {
    const definition = harness
      .definitions()
      .find((d) => d.spec.entityType === 'customer' && !d.streamId.startsWith('hotel:'))!;
    const deps = harness.deps('chain');
    const minute = { ...definition, intervalMs: 60_000, phaseMs: 0 };
    await pollConnectionStreams([minute.streamId], [minute], deps, 't');
    const kept = await deps.store.getStream(minute.streamId);
    expect(kept!.nextDueAt).toBe(kept!.lastPollAt! + 60_000);
    await harness.clock.advance(5_000);
    const fiveSeconds = { ...definition, intervalMs: 5_000, phaseMs: 0 };

    const job = await pollConnectionStreams(
      [fiveSeconds.streamId],
      [fiveSeconds],
      deps,
      't',
      harness.clock.now(),
    );

    expect(job.outcomes).toEqual([
      { kind: 'polled', streamId: fiveSeconds.streamId, caughtUp: true },
    ]);
    expect(job.nextDueAt).toBe(harness.clock.now() + 5_000);
  });

  it('spends one state write on a quiet poll of a caught-up stream, and no read to say when it is next due', async () => {
    const definition = harness
      .definitions()
      .find((d) => d.spec.entityType === 'customer' && !d.streamId.startsWith('hotel:'))!;
    const deps = harness.deps('chain');
    await pollConnectionStreams([definition.streamId], [definition], deps, 't');
    await harness.clock.advance(5_000);
    const calls: string[] = [];
    const counted = observedStore(deps.store, (method) => calls.push(method));

    const quiet = await pollConnectionStreams(
      [definition.streamId],
      [definition],
      { ...deps, store: counted },
      't',
      harness.clock.now(),
    );

    expect(quiet.outcomes).toEqual([
      { kind: 'polled', streamId: definition.streamId, caughtUp: true },
    ]);
    // One lease for the job, taken first: the due check's read is the poll's.
    expect(calls).toEqual(['acquireLease', 'getStream', 'saveStream', 'releaseLease']);
    const stored = await deps.store.getStream(definition.streamId);
    expect(quiet.nextDueAt).toBe(stored!.nextDueAt);
    expect(stored).toMatchObject({ window: null, lastSuccessAt: harness.clock.now() });
    expect(Date.parse(stored!.watermark!)).toBeGreaterThan(harness.clock.now() - 5_000);
    // What follows the job (its metrics) reads the state it wrote, not the store again.
    expect(quiet.states.get(definition.streamId)).toEqual(stored);

    // The only poller of its store (the local runtime) takes no lease: a read and a write.
    await harness.clock.advance(5_000);
    calls.length = 0;
    await pollConnectionStreams(
      [definition.streamId],
      [definition],
      { ...deps, store: counted, solePoller: true },
      't',
    );
    expect(calls).toEqual(['getStream', 'saveStream']);
  });

  it('polls its caught-up streams before a first sync, which takes what the invocation has left', async () => {
    const definitions = harness
      .definitions()
      .filter((d) => !d.streamId.startsWith('hotel:'))
      .map((d) => ({ ...d, phaseMs: 0 }));
    const customer = definitions.find((d) => d.spec.entityType === 'customer')!;
    const resource = definitions.find((d) => d.spec.entityType === 'resource')!;
    const deps = harness.deps('chain');
    await pollConnectionStreams([resource.streamId], definitions, deps, 't');
    await deps.store.deleteStream(customer.streamId);
    await harness.clock.advance(60_000);
    // Each window of the first sync (three months of history from 2020) takes a minute here:
    // the job's four minutes end long before it is caught up.
    let spent = 0;
    const clock = {
      now: () => harness.clock.now() + spent,
      sleep: (ms: number, signal?: AbortSignal) => harness.clock.sleep(ms, signal),
    };
    const job = await pollConnectionStreams(
      [customer.streamId, resource.streamId],
      definitions,
      {
        ...deps,
        clock,
        deadline: clock.now() + 4 * 60_000,
        observer: {
          onWindow: () => {
            spent += 60_000;
          },
        },
      },
      't',
      clock.now(),
    );

    // Before, the first sync (due first) ran to the deadline and the live stream was left for
    // the next job, again and again until the first sync was done.
    expect(job.outcomes).toEqual([
      { kind: 'polled', streamId: resource.streamId, caughtUp: true },
      { kind: 'polled', streamId: customer.streamId, caughtUp: false },
    ]);
  });

  it('polls its caught-up streams before one whose next window is catch-up work after hours away', async () => {
    const definitions = harness
      .definitions()
      .filter((d) => !d.streamId.startsWith('hotel:'))
      .map((d) => ({ ...d, phaseMs: 0 }));
    const customer = definitions.find((d) => d.spec.entityType === 'customer')!;
    const resource = definitions.find((d) => d.spec.entityType === 'resource')!;
    const deps = harness.deps('chain');
    await pollConnectionStreams([customer.streamId, resource.streamId], definitions, deps, 't');
    // The customer stream is not polled for two hours (its poller failed, or was away); the
    // resource stream is, and is caught up. The customers changed meanwhile.
    await harness.clock.advance(2 * 60 * 60_000);
    await pollConnectionStreams([resource.streamId], definitions, deps, 't');
    const model = harness.sim.controls.model;
    const ids = [...model.customers.all()]
      .filter((e) => e.record.IsActive)
      .slice(0, 5)
      .map((e) => e.record.Id);
    for (const id of ids) model.update(model.customers, 'customer', id, { Notes: 'while away' });
    await harness.clock.advance(1000);
    const before = await deps.store.getStream(customer.streamId);
    expect(before?.window).toBeNull();
    // Each page of the customers' catch-up window takes five minutes here: the job's four
    // minutes end after its first page.
    let spent = 0;
    const clock = {
      now: () => harness.clock.now() + spent,
      sleep: (ms: number, signal?: AbortSignal) => harness.clock.sleep(ms, signal),
    };
    const job = await pollConnectionStreams(
      [customer.streamId, resource.streamId],
      definitions,
      {
        ...deps,
        clock,
        deadline: clock.now() + 4 * 60_000,
        observer: {
          onChanges: (streamId) => {
            if (streamId === customer.streamId) spent += 5 * 60_000;
          },
        },
      },
      't',
      clock.now(),
    );

    // Before, the customer stream (no window in progress, so taken for live) went first, read
    // its two hours past the deadline and the caught-up resource stream was left for the next job.
    expect(job.outcomes.map((o) => [o.streamId, o.kind])).toEqual([
      [resource.streamId, 'polled'],
      [customer.streamId, 'polled'],
    ]);
  });

  it('polls its caught-up streams before one whose sweep is due, which takes what the invocation has left', async () => {
    const definitions = harness
      .definitions()
      .filter((d) => !d.streamId.startsWith('hotel:'))
      .map((d) => ({ ...d, phaseMs: 0 }));
    const payment = definitions.find((d) => d.spec.entityType === 'paymentRequest')!;
    const resource = definitions.find((d) => d.spec.entityType === 'resource')!;
    const deps = harness.deps('chain');
    // Both caught up (the payment requests swept once), then the hourly sweep falls due.
    await pollConnectionStreams([payment.streamId, resource.streamId], definitions, deps, 't');
    await harness.clock.advance(61 * 60_000);
    // The resource stream is polled meanwhile (an hour unpolled would make its next window
    // catch-up work, which goes after caught-up streams too).
    await pollConnectionStreams([resource.streamId], definitions, deps, 't');
    await harness.clock.advance(1_000);
    // Each request of the sweep (1,000 ids each, all the stored payment requests) takes a
    // minute here: the job's four minutes end during it.
    let spent = 0;
    const clock = {
      now: () => harness.clock.now() + spent,
      sleep: (ms: number, signal?: AbortSignal) => harness.clock.sleep(ms, signal),
    };
    const client = new Proxy(deps.client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'paginate' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if ((args[1] as Record<string, unknown> | undefined)?.PaymentRequestIds)
            spent += 5 * 60_000;
          return value.apply(target, args);
        };
      },
    });
    const job = await pollConnectionStreams(
      [payment.streamId, resource.streamId],
      definitions,
      { ...deps, client, clock, deadline: clock.now() + 4 * 60_000 },
      't',
      clock.now(),
    );

    // Sweeps use what live polls leave (design.md, Connector budget): before, the stream due
    // first ran its sweep past the deadline and the live stream was left for the next job.
    expect(job.outcomes).toEqual([
      { kind: 'polled', streamId: resource.streamId, caughtUp: true },
      { kind: 'polled', streamId: payment.streamId, caughtUp: true },
    ]);
    expect(spent).toBeGreaterThan(0);
  });

  it('keeps the live window its stream committed when the sweep after it is cut at the deadline', async () => {
    const { definitions, payment, deps } = await paymentStreamWithSweepDue();
    const before = (await deps.store.getStream(payment.streamId))!;
    // Each sweep request (by PaymentRequestIds) waits five minutes for its answer, on the
    // clock and the request's signal; the job's deadline comes two minutes in.
    const client = answeringSweeps(deps.client, async function* (_ids, signal, asked) {
      await harness.clock.sleep(5 * 60_000, signal);
      yield* asked();
    });
    await runJobToEnd(payment.streamId, definitions, { ...deps, client }, 2 * 60_000);

    // Its live window was read, published and stored before the sweep began: the next job
    // must start from there, not read it again (and again, while each sweep is cut short).
    const after = (await deps.store.getStream(payment.streamId))!;
    expect(Date.parse(after.watermark!)).toBeGreaterThan(Date.parse(before.watermark!));
    expect(after.window).toBeNull();
  });

  it('goes on with a sweep cut at the deadline from the last id it checked, not from the first', async () => {
    // 2,500 more stored payment requests: a sweep of three requests (1,000 ids each).
    const { definitions, payment, deps, swept } = await paymentStreamWithSweepDue(
      Array.from(
        { length: 2_500 },
        (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      ),
    );
    // Every id asked for exists (the answer is made up from the request); from the second
    // request of the first job on, each answer takes five minutes, past that job's deadline.
    const asked: string[][] = [];
    let stall = true;
    const client = answeringSweeps(deps.client, async function* (ids, signal) {
      asked.push(ids);
      if (stall && asked.length > 1) await harness.clock.sleep(5 * 60_000, signal);
      yield {
        items: ids.map((Id) => ({ Id })),
        cursor: null,
        count: ids.length,
        last: true,
        passedOver: 0,
        setAside: [],
      };
    });
    await runJobToEnd(payment.streamId, definitions, { ...deps, client }, 2 * 60_000);
    const firstRequest = new Set(asked[0]);
    expect(firstRequest.size).toBe(1_000);

    stall = false;
    asked.length = 0;
    await runJobToEnd(payment.streamId, definitions, { ...deps, client }, 10 * 60_000);
    // The second job asks only for the ids after those the first job checked, and ends the sweep.
    const second = asked.flat();
    expect(second.filter((id) => firstRequest.has(id))).toEqual([]);
    expect(new Set([...firstRequest, ...second])).toEqual(
      new Set(
        (await allSnapshots(deps.store, payment.streamId))
          .filter((snapshot) => !snapshot.deleted)
          .map((snapshot) => snapshot.entityId),
      ),
    );
    const after = (await deps.store.getStream(payment.streamId))!;
    expect(after.lastSweepAt).toBeGreaterThan(swept);
    expect(after.sweepPosition ?? null).toBeNull();
  });

  it('stops a sweep at a deadline without a signal (a pollStream call alone) and goes on from there in the next poll', async () => {
    // 2,500 more stored payment requests: a sweep of three requests (1,000 ids each).
    const { payment, deps, swept } = await paymentStreamWithSweepDue(
      Array.from(
        { length: 2_500 },
        (_, i) => `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
      ),
    );
    // Every id asked for exists; each answer takes five minutes of the clock.
    const asked: string[][] = [];
    const client = answeringSweeps(deps.client, async function* (ids) {
      asked.push(ids);
      await harness.clock.advance(5 * 60_000);
      yield {
        items: ids.map((Id) => ({ Id })),
        cursor: null,
        count: ids.length,
        last: true,
        passedOver: 0,
        setAside: [],
      };
    });
    const deadline = harness.clock.now() + 60_000;
    const cut = await pollStream(payment, { ...deps, client, deadline }, 't');

    // The first request ends past the deadline: no other is started, the position is kept and
    // the stream is due again at once.
    expect(cut).toMatchObject({ kind: 'polled', caughtUp: false });
    expect(asked).toHaveLength(1);
    const kept = (await deps.store.getStream(payment.streamId))!;
    expect(kept.sweepPosition).toBe(asked[0]!.at(-1));
    expect(kept.lastSweepAt).toBe(swept);
    expect(kept.nextDueAt).toBeLessThanOrEqual(harness.clock.now());

    const first = new Set(asked[0]);
    asked.length = 0;
    const done = await pollStream(payment, { ...deps, client }, 't');
    expect(done).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(asked.flat().filter((id) => first.has(id))).toEqual([]);
    const after = (await deps.store.getStream(payment.streamId))!;
    expect(after.lastSweepAt).toBeGreaterThan(swept);
    expect(after.sweepPosition ?? null).toBeNull();
  });

  it('takes one lease for the whole job: an overlapping job of the connection polls nothing', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const deps = harness.deps('hotel');
    const streamIds = definitions.map((d) => d.streamId);
    const leases: string[] = [];
    const counting = observedStore(deps.store, (method, args) => {
      if (method === 'acquireLease') leases.push(String(args[0]));
    });
    const connectionId = definitions[0]!.connectionId;
    // Another job of the same connection holds it.
    const now = harness.clock.now();
    expect(
      await deps.store.acquireLease(connectionLeaseId(connectionId), 'other', 60_000, now),
    ).toBeTruthy();
    const blocked = await pollConnectionStreams(
      streamIds,
      definitions,
      { ...deps, store: counting },
      'me',
    );
    expect(blocked.outcomes).toEqual(
      streamIds.map((streamId) => ({ kind: 'skipped', streamId, reason: 'leased' })),
    );

    await deps.store.releaseLease(connectionLeaseId(connectionId), 'other');
    leases.length = 0;
    const polled = await pollConnectionStreams(
      streamIds,
      definitions,
      { ...deps, store: counting },
      'me',
    );
    expect(polled.outcomes.every((o) => o.kind === 'polled')).toBe(true);
    expect(leases).toEqual([connectionLeaseId(connectionId)]);
    // Released at the end: the next job takes it at once.
    expect(
      await deps.store.acquireLease(connectionLeaseId(connectionId), 'next', 60_000, now),
    ).toBeTruthy();
  });
});
