import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { ManualClock } from '../../shared/clock.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { SnapshotReplacement, StoredSnapshot } from '../../shared/state/state-store.ts';
import { type DeliveredChange, duplicateIds, revisitedStates } from '../chaos/duplicate-ids.ts';
import {
  type CollectingPublisher,
  type CustomerStream,
  customerStream,
  POLL_TEST_START_MS,
} from './poll-harness.ts';

/**
 * A memory store that can be "killed" once in the middle of a snapshot write: the first half
 * of the batch lands, the rest does not, and the poller sees the write fail (as a SIGKILL
 * leaves it: events published, snapshots partly stored, cursor not saved). A live customer
 * page stores with replaceSnapshots (guarded against the write-through proxy), others with
 * putSnapshots: either is killed so.
 */
class KilledMidWriteStore extends MemoryStateStore {
  killNextWrite = false;
  override async putSnapshots(
    streamId: string,
    snapshots: readonly StoredSnapshot[],
  ): Promise<void> {
    if (!this.killNextWrite) return super.putSnapshots(streamId, snapshots);
    this.killNextWrite = false;
    await super.putSnapshots(streamId, snapshots.slice(0, Math.floor(snapshots.length / 2)));
    throw new Error('killed between publish and commit');
  }
  override async replaceSnapshots(
    streamId: string,
    replacements: readonly SnapshotReplacement[],
  ): Promise<string[]> {
    if (!this.killNextWrite) return super.replaceSnapshots(streamId, replacements);
    this.killNextWrite = false;
    await super.replaceSnapshots(
      streamId,
      replacements.slice(0, Math.floor(replacements.length / 2)),
    );
    throw new Error('killed between publish and commit');
  }
}

const asDelivered = (event: EntityEvent): DeliveredChange => ({
  id: event.id,
  type: event.type,
  subject: event.subject,
  content: event.data.current ?? event.data.previous,
  previous: event.data.previous ?? null,
  time: event.time,
});

describe('a change re-detected after a crash between publish and commit', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const store = new KilledMidWriteStore();
  let sim: RunningSimulator;
  let stream: CustomerStream;
  let publisher: CollectingPublisher;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 16, size: 'small', clock, rateLimit: false });
    // Pages of 10: page n+1 is published while page n's snapshots are being stored.
    stream = customerStream(sim, clock, store, 10);
    publisher = stream.deps.publisher;
  });
  afterAll(async () => {
    await stream.client.close();
    await sim.close();
  });

  /** One poll after the clock moved past the settle lag; a failed run's retry time is waited out. */
  async function poll() {
    await clock.advance(2_000);
    const outcome = await pollStream(stream.definition, stream.deps, 'poller');
    if (outcome.kind === 'failed') await clock.advance(Math.max(0, outcome.retryAt - clock.now()));
    return outcome;
  }

  const customerIds = () =>
    [...sim.controls.model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, 25)
      .map((entry) => entry.record.Id);

  it('carries the same id, and a record that really goes back and forth gets new ids', async () => {
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(publisher.events).toHaveLength(0);

    const model = sim.controls.model;
    const ids = customerIds();
    const before = new Map(ids.map((id) => [id, model.customers.get(id)!.record.Notes]));
    for (const [i, id] of ids.entries())
      model.update(model.customers, 'customer', id, { Notes: `crash window ${i}` });

    store.killNextWrite = true;
    expect(await poll()).toMatchObject({
      kind: 'failed',
      error: expect.stringContaining('killed between publish and commit'),
    });
    const beforeRestart = [...publisher.events];
    // Page 1 was published, then page 2 while page 1's snapshots were half stored.
    expect(beforeRestart.length).toBe(20);

    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    const afterRestart = publisher.events.slice(beforeRestart.length);
    // The snapshots that landed spare their events; every other one is published again.
    expect(afterRestart.length).toBe(25 - 5);
    const firstIdOf = new Map(beforeRestart.map((event) => [event.subject, event.id]));
    for (const event of afterRestart) {
      const first = firstIdOf.get(event.subject);
      if (first !== undefined) expect(event.id).toBe(first);
    }
    const idsBySubject = new Map<string, Set<string>>();
    for (const event of publisher.events)
      idsBySubject.set(event.subject, (idsBySubject.get(event.subject) ?? new Set()).add(event.id));
    expect([...idsBySubject.values()].map((set) => set.size)).toEqual(Array(25).fill(1));
    expect(duplicateIds(publisher.events.map(asDelivered))).toBe(0);

    // A quiet poll: everything is stored now.
    const stored = publisher.events.length;
    expect(await poll()).toMatchObject({ kind: 'polled' });
    expect(publisher.events).toHaveLength(stored);

    // The first customer goes back to its old note and then to the crash-window note again:
    // two real changes, so two new ids, the second a transition seen before (A→B) but not a
    // duplicate, since B→A came between.
    const [first] = ids;
    model.update(model.customers, 'customer', first!, { Notes: before.get(first!) ?? null });
    await poll();
    model.update(model.customers, 'customer', first!, { Notes: 'crash window 0' });
    await poll();
    const flips = publisher.events.slice(stored);
    expect(flips.map((event) => event.subject)).toEqual([first, first]);
    expect(new Set([firstIdOf.get(first!), ...flips.map((event) => event.id)]).size).toBe(3);
    const delivered = publisher.events.map(asDelivered);
    expect(duplicateIds(delivered)).toBe(0);
    expect(revisitedStates(delivered)).toBe(1);
  }, 60_000);
});
