import type { StateStore } from '../state/state-store.ts';
import { delegatingStateStore } from './poll-context.ts';

/** Told the ids of streams whose stored states changed. */
export type StateChangeListener = (streamIds: readonly string[]) => void;

/** Where a poll loop hears of stream states changed outside its own polls. */
export interface StateChangeSource {
  /** Adds `listener`; returns what removes it. */
  subscribe(listener: StateChangeListener): () => void;
}

/**
 * Notices of stream states changed outside the poll loop's own polls (the admin API's resets,
 * backfills and connection removals in `start`): the loop re-reads just those streams at once
 * instead of every state on every tick. Listeners are called synchronously, in order; one that
 * throws does not keep the others from being told.
 * @example
 * const notices = new StateChangeNotices();
 * notices.subscribe((ids) => console.log(ids));
 * notices.tell(['hotel-1:customer']);
 */
export class StateChangeNotices implements StateChangeSource {
  private readonly listeners = new Set<StateChangeListener>();

  subscribe(listener: StateChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener that the states of `streamIds` changed; nothing for none. */
  tell(streamIds: readonly string[]): void {
    if (streamIds.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(streamIds);
      } catch {
        // A listener's failure is its own: the loop's full reads still find the change.
      }
    }
  }
}

/**
 * `store`, telling `notices` of each stream state it writes (saved, deleted or its state
 * removed), once the write went through. Snapshots, leases and reads pass through untold.
 */
export function noticingStateStore(store: StateStore, notices: StateChangeNotices): StateStore {
  return {
    ...delegatingStateStore(store),
    saveStream: async (state, expectedVersion) => {
      const written = await store.saveStream(state, expectedVersion);
      notices.tell([written.streamId]);
      return written;
    },
    deleteStream: async (streamId) => {
      await store.deleteStream(streamId);
      notices.tell([streamId]);
    },
    deleteStreamState: async (streamId, expectedVersion) => {
      const deleted = await store.deleteStreamState(streamId, expectedVersion);
      if (deleted) notices.tell([streamId]);
      return deleted;
    },
  };
}
