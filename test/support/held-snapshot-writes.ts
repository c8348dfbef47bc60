import type { StateStore } from '../../shared/state/state-store.ts';

/** A snapshot write held until {@link HeldSnapshotWrites.release} (see holdSnapshotWrites). */
export interface HeldSnapshotWrites {
  /** Settles once a write has begun (and is held). */
  storing: Promise<void>;
  /** True once a write has begun. */
  isStoring(): boolean;
  /** Lets every held write, and every later one, go on. */
  release(): void;
}

/**
 * Holds every snapshot write of `state` until released, `putSnapshots` and the conditional
 * `replaceSnapshots` (a first-sync page of customers without a write gate, as in AWS, stores
 * with conditions): a poll stopped mid-page, storing, for tests of what runs beside it (a
 * connection removed, its token rotated). Replaces the methods on this instance only.
 */
export function holdSnapshotWrites(
  state: Pick<StateStore, 'putSnapshots' | 'replaceSnapshots'>,
): HeldSnapshotWrites {
  let began = false;
  let begin!: () => void;
  const storing = new Promise<void>((resolve) => {
    begin = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hold = async () => {
    began = true;
    begin();
    await released;
  };
  const putSnapshots = state.putSnapshots.bind(state);
  state.putSnapshots = async (streamId, snapshots) => {
    await hold();
    return putSnapshots(streamId, snapshots);
  };
  const replaceSnapshots = state.replaceSnapshots.bind(state);
  state.replaceSnapshots = async (streamId, replacements) => {
    await hold();
    return replaceSnapshots(streamId, replacements);
  };
  return { storing, isStoring: () => began, release };
}
