import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MultiPublisher } from '../../shared/publish/multi-publisher.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { applyInOrder, Target } from './patch-receivers.ts';
import { type CustomerStream, entityStream, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * A stream publishing to a bus and a queue, with one record to change: an active customer (a
 * windowed stream), or a billing automation (a listing).
 */
async function twoTargetStream(
  seed: number,
  entity: 'customer' | 'billingAutomation' = 'customer',
) {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const sim = await startSimulator({ seed, customers: 40, clock, rateLimit: false });
  const store = new MemoryStateStore();
  const stream: CustomerStream = entityStream(sim, clock, store, entity);
  const bus = new Target('eventbridge');
  const queue = new Target('sqs');
  stream.deps.publisher = new MultiPublisher([bus, queue]) as never;
  const model = sim.controls.model;
  const set = (entity === 'customer'
    ? model.customers
    : model.billingAutomations) as unknown as typeof model.customers;
  const chosen = [...set.all()].find(
    (entry) => entity !== 'customer' || entry.record.IsActive,
  )!.record;
  return {
    sim,
    store,
    bus,
    queue,
    streamId: stream.definition.streamId,
    id: chosen.Id,
    phone: chosen.Phone ?? null,
    /** The record as the connector holds it now. */
    record: () => JSON.parse(JSON.stringify(set.get(chosen.Id)!.record)),
    change: (fields: Record<string, unknown>) => model.update(set, entity, chosen.Id, fields),
    /** One poll after the clock moved past the settle lag; a failed run's retry time is waited out. */
    async poll() {
      await clock.advance(2_000);
      const outcome = await pollStream(stream.definition, stream.deps, 'poller');
      if (outcome.kind === 'failed')
        await clock.advance(Math.max(0, outcome.retryAt - clock.now()));
      return outcome;
    },
    async close() {
      await stream.client.close();
      await sim.close();
    },
  };
}

type Scenario = Awaited<ReturnType<typeof twoTargetStream>>;

/** What each target's receiver holds of the customer, and the events that did not chain. */
function receivedBy(scenario: Scenario) {
  return [scenario.bus, scenario.queue].map((target) => {
    const { held, unchained } = applyInOrder(target.accepted);
    return { target: target.name, record: held.get(scenario.id), unchained };
  });
}

describe('a poll whose publish failed after one of its targets took the events', () => {
  let scenario: Scenario;
  afterEach(() => scenario.close());

  it('republishes the event first, as it was, and measures the newer change from its current', async () => {
    scenario = await twoTargetStream(21);
    const { bus, queue } = scenario;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    // A → B: the bus takes the event, the queue fails: the window is not committed.
    scenario.change({ Notes: 'first note', Phone: '+1 555 0101' });
    queue.failing = true;
    expect(await scenario.poll()).toMatchObject({ kind: 'failed' });
    expect(bus.accepted).toHaveLength(1);
    const [first] = bus.accepted;

    // B → C before the retry: the phone goes back to what it was, the note changes again.
    scenario.change({ Notes: 'second note', Phone: scenario.phone });
    queue.failing = false;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    const record = scenario.record();
    for (const received of receivedBy(scenario))
      expect(received).toEqual({ target: received.target, record, unchained: [] });
    // The queue, which missed the first event, gets it as the bus did: same id, same content.
    expect(queue.accepted.map((event) => event.id)).toEqual([first!.id, bus.accepted.at(-1)!.id]);
    expect(queue.accepted[0]).toEqual(first);
    // The newer change is measured from the first one's `current`, on both targets.
    expect(bus.accepted.map((event) => event.id)).toEqual([
      first!.id,
      first!.id,
      queue.accepted[1]!.id,
    ]);
    expect(queue.accepted[1]!.data.previous).toEqual(first!.data.current);
    expect(queue.accepted[1]!.data.current).toEqual(record);
  }, 30_000);

  it('keeps the chain through failures in a row, and publishes nothing more once all is out', async () => {
    scenario = await twoTargetStream(22);
    const { bus, queue } = scenario;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    queue.failing = true;
    scenario.change({ Notes: 'first note', Phone: '+1 555 0101' });
    expect(await scenario.poll()).toMatchObject({ kind: 'failed' });
    scenario.change({ Notes: 'second note', Phone: scenario.phone });
    expect(await scenario.poll()).toMatchObject({ kind: 'failed' });
    scenario.change({ Notes: 'third note' });
    queue.failing = false;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    const record = scenario.record();
    for (const received of receivedBy(scenario))
      expect(received).toEqual({ target: received.target, record, unchained: [] });
    // Three changes, three ids, in the order they were found, on both targets.
    const ids = [...new Set(bus.accepted.map((event) => event.id))];
    expect(ids).toHaveLength(3);
    expect(queue.accepted.map((event) => event.id)).toEqual(ids);

    const sent = [bus.accepted.length, queue.accepted.length];
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    expect([bus.accepted.length, queue.accepted.length]).toEqual(sent);
    const [stored] = (await scenario.store.getSnapshots(scenario.streamId, [scenario.id])).values();
    expect(stored).not.toHaveProperty('unconfirmed');
  }, 30_000);

  it('republishes the same event alone when the record did not change before the retry', async () => {
    scenario = await twoTargetStream(23);
    const { bus, queue } = scenario;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    scenario.change({ Notes: 'first note' });
    queue.failing = true;
    expect(await scenario.poll()).toMatchObject({ kind: 'failed' });
    queue.failing = false;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(await scenario.poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    expect(queue.accepted).toEqual([bus.accepted[0]]);
    expect(bus.accepted).toEqual([queue.accepted[0], queue.accepted[0]]);
    const record = scenario.record();
    for (const received of receivedBy(scenario))
      expect(received).toEqual({ target: received.target, record, unchained: [] });
  }, 30_000);

  it('does the same for a listing (billing automations, listed whole at each poll)', async () => {
    scenario = await twoTargetStream(24, 'billingAutomation');
    const { bus, queue } = scenario;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled' });
    const description = scenario.record().Description ?? null;

    scenario.change({ Name: 'first name', Description: 'for a while' });
    queue.failing = true;
    expect(await scenario.poll()).toMatchObject({ kind: 'failed' });
    const [first] = bus.accepted;
    scenario.change({ Name: 'second name', Description: description });
    queue.failing = false;
    expect(await scenario.poll()).toMatchObject({ kind: 'polled' });
    expect(await scenario.poll()).toMatchObject({ kind: 'polled' });

    const record = scenario.record();
    for (const received of receivedBy(scenario))
      expect(received).toEqual({ target: received.target, record, unchained: [] });
    expect(queue.accepted.map((event) => event.id)).toEqual([first!.id, bus.accepted.at(-1)!.id]);
    expect(queue.accepted[0]).toEqual(first);
  }, 30_000);
});
