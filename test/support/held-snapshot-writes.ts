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
 * Holds every `putSnapshots` of `state` until released: a poll stopped mid-page, storing, for
 * tests of what runs beside it (a connection removed, its token rotated). Replaces the method
 * on this instance only.
 */
export function holdSnapshotWrites(state: Pick<StateStore, 'putSnapshots'>): HeldSnapshotWrites {
  let began = false;
  let begin!: () => void;
  const storing = new Promise<void>((resolve) => {
    begin = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const putSnapshots = state.putSnapshots.bind(state);
  state.putSnapshots = async (streamId, snapshots) => {
    began = true;
    begin();
    await released;
    return putSnapshots(streamId, snapshots);
  };
  return { storing, isStoring: () => began, release };
}
