import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { PURGE_LEASE_ID, runPurgeJob } from '../../shared/polling/purge-job.ts';
import {
  REMOVED_SNAPSHOTS_DELETED_PER_STEP,
  removeStream,
} from '../../shared/polling/removed-streams.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { snapshot, streamState } from '../state/state-store.contract.ts';

const START = Date.UTC(2026, 2, 1);

/** A store with `hotel-1:customer` removed in the background, holding `count` snapshots of before. */
async function removedStream(count: number) {
  const store = new MemoryStateStore();
  const clock = new ManualClock(START);
  await store.saveStream(streamState('hotel-1:customer', { initialSyncDone: true }), 0);
  await store.putSnapshots(
    'hotel-1:customer',
    Array.from({ length: count }, (_, i) => ({ ...snapshot(`e${i}`), updatedAt: START - 1 })),
  );
  await removeStream(
    store,
    { streamId: 'hotel-1:customer', connectionId: 'hotel-1', entityType: 'customer' },
    START,
    'background',
  );
  return { store, clock };
}

describe('runPurgeJob (a poller’s purge job)', () => {
  it('runs purge steps until nothing is left, more snapshots than one step deletes', async () => {
    const count = REMOVED_SNAPSHOTS_DELETED_PER_STEP * 2 + 10;
    const { store, clock } = await removedStream(count);

    const result = await runPurgeJob(store, { clock, deadline: START + 60_000, owner: 'job-1' });

    expect(result).toEqual({
      streamsPurged: 1,
      snapshotsDeleted: count,
      done: true,
      leased: false,
    });
    expect(await store.getStream('hotel-1:customer')).toBeUndefined();
    expect(await store.listRemovedStreams(10)).toEqual([]);
    // The purge lease is given back for the next job.
    expect(await store.acquireLease(PURGE_LEASE_ID, 'job-2', 1_000, clock.now())).not.toBeNull();
  });

  it('does nothing while another purge job holds the lease, nor past its deadline', async () => {
    const { store, clock } = await removedStream(10);
    await store.acquireLease(PURGE_LEASE_ID, 'job-1', 60_000, clock.now());

    const leased = await runPurgeJob(store, { clock, deadline: START + 60_000, owner: 'job-2' });
    expect(leased).toMatchObject({ leased: true, snapshotsDeleted: 0, done: false });

    await store.releaseLease(PURGE_LEASE_ID, 'job-1');
    const late = await runPurgeJob(store, { clock, deadline: START, owner: 'job-3' });
    expect(late).toMatchObject({ leased: false, snapshotsDeleted: 0, done: false });
    expect(await store.listRemovedStreams(10)).toEqual([
      { streamId: 'hotel-1:customer', removedAt: START },
    ]);
  });
});
