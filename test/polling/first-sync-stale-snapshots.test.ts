import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { initialStreamState, pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { type CollectingPublisher, entityStream, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * A backfill resets a stream that had not completed its first sync: it deletes the snapshots
 * (a page at a time, for seconds) and then writes a fresh state, while the stream's old poller
 * goes on storing pages meanwhile. Snapshots it stored behind the deletion's cursor outlive the
 * reset (seen under change-bridge start: a `backfill --emit` of account notes during their first
 * sync published 2,009 of 2,887 `created` events). Here the reset leaves every snapshot behind.
 */
describe('a first sync after a reset that left snapshots behind', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const store = new MemoryStateStore();
  let publisher: CollectingPublisher;
  let sim: RunningSimulator;
  let client: ConnectorClient;
  let definition: StreamDefinition;
  let deps: PollDeps;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: 'small', clock, rateLimit: false });
    const stream = entityStream(sim, clock, store, 'accountNote');
    ({ client, definition, deps } = stream);
    publisher = stream.deps.publisher;
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  async function pollToTheEnd() {
    for (let i = 0; i < 20; i++) {
      await clock.advance(2_000);
      const outcome = await pollStream(definition, deps, 'poller');
      if (outcome.kind === 'polled' && outcome.caughtUp) return;
    }
    throw new Error('the stream did not catch up');
  }

  it('publishes created for every entity, not judging them against snapshots of before it', async () => {
    // The old first sync, silent (INITIAL_SYNC=baseline), stores a snapshot of every note.
    await pollToTheEnd();
    expect(publisher.events).toHaveLength(0);
    const before = await store.getStream(definition.streamId);
    // The backfill's reset: a fresh state in emit mode (what startStreamBackfill writes), the
    // old poller's snapshots still there.
    await clock.advance(60_000);
    await store.saveStream(
      {
        ...initialStreamState(definition, clock.now()),
        initialSync: 'emit',
        backfill: { kind: 'first-sync', jobId: 'bf_1' },
        version: before?.version ?? 0,
      },
      before?.version ?? 0,
    );
    await pollToTheEnd();
    const active = [...sim.controls.model.accountNotes.all()].filter(
      (entry) => entry.record.IsActive,
    );
    expect(active.length).toBeGreaterThan(0);
    const created = new Set(
      publisher.events.filter((e) => e.type === 'accountNote.created').map((e) => e.subject),
    );
    expect(created.size).toBe(active.length);
  });
});

/**
 * The same for customers, whose pages are stored with conditions where no gate says no proxied
 * write overlaps them (the write-through proxy stores their snapshots too): a snapshot left
 * behind is the stream's as little as in a batch, whether the page read it (and judged it absent)
 * or spared its read, and is stored over without being told as changed.
 */
describe('a first sync of customers after a reset that left snapshots behind, some since changed', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const store = new MemoryStateStore();
  let sim: RunningSimulator;
  let stream: ReturnType<typeof entityStream>;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 33, size: 'small', clock, rateLimit: false });
    stream = entityStream(sim, clock, store, 'customer');
  });
  afterAll(async () => {
    await stream.client.close();
    await sim.close();
  });

  async function pollToTheEnd() {
    for (let i = 0; i < 20; i++) {
      await clock.advance(2_000);
      const outcome = await pollStream(stream.definition, stream.deps, 'poller');
      if (outcome.kind === 'polled' && outcome.caughtUp) return;
    }
    throw new Error('the stream did not catch up');
  }

  it('publishes created for every customer and nothing else', async () => {
    const { definition, deps } = stream;
    const model = sim.controls.model;
    await pollToTheEnd();
    expect(deps.publisher.events).toHaveLength(0);
    const [longBefore, justBefore] = [...model.customers.all()]
      .filter((entry) => entry.deletedMs === null && entry.record.IsActive)
      .map((entry) => entry.record.Id as string);
    // Changed a minute before the new sync starts: its read is spared.
    model.update(model.customers, 'customer', longBefore!, { Notes: 'changed after the old sync' });
    const before = await store.getStream(definition.streamId);
    await clock.advance(60_000);
    await store.saveStream(
      {
        ...initialStreamState(definition, clock.now()),
        initialSync: 'emit',
        backfill: { kind: 'first-sync', jobId: 'bf_1' },
        version: before?.version ?? 0,
      },
      before?.version ?? 0,
    );
    // Changed within the overlap of the new sync's start: read, and judged absent.
    model.update(model.customers, 'customer', justBefore!, { Notes: 'changed before the reset' });
    await pollToTheEnd();
    const active = [...model.customers.all()].filter(
      (entry) => entry.deletedMs === null && entry.record.IsActive,
    );
    const created = deps.publisher.events.filter((e) => e.type === 'customer.created');
    expect(new Set(created.map((e) => e.subject)).size).toBe(active.length);
    expect(deps.publisher.events.filter((e) => e.type !== 'customer.created')).toEqual([]);
  });
});
