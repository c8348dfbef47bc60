import type { StateStore } from './state-store.ts';

/** What {@link deleteSnapshotsBefore} did. */
export interface SnapshotsBeforeDeletion {
  /** Snapshots deleted. */
  deleted: number;
  /** Whether none stored before `before` is left (false: the bound stopped it first). */
  noneLeft: boolean;
}

/**
 * Deletes the stream's snapshots stored before `before` (their `updatedAt`, epoch ms), at most
 * about `max` (whole pages of the scan): a bounded piece of work however many the stream holds,
 * repeated until `noneLeft`. Snapshots stored since are kept.
 */
export async function deleteSnapshotsBefore(
  store: StateStore,
  streamId: string,
  before: number,
  max: number,
): Promise<SnapshotsBeforeDeletion> {
  let deleted = 0;
  for await (const page of store.scanSnapshots(streamId)) {
    const old = page.filter((s) => s.updatedAt < before).map((s) => s.entityId);
    if (old.length > 0) await store.deleteSnapshots(streamId, old);
    deleted += old.length;
    if (deleted >= max) return { deleted, noneLeft: false };
  }
  return { deleted, noneLeft: true };
}
