import { mapWithConcurrency } from '../concurrency.ts';
import type { StateStore, StreamState } from '../state/state-store.ts';

/** Stream states read at once by {@link ToldStateReads} (a connection's 13, a backfill's many). */
export const TOLD_STATE_READS_CONCURRENCY = 8;

/** Options of {@link ToldStateReads}. */
export interface ToldStateReadsOptions {
  store: Pick<StateStore, 'getStream'>;
  /**
   * Called as the read of `streamId` begins; what it returns takes the state read (undefined:
   * none stored), so it can tell what changed while the read ran.
   */
  beginRead(streamId: string): (state: StreamState | undefined) => void;
  /** A read that failed: the stream waits for the loop's next full read. */
  onError(error: unknown): void;
}

/**
 * Re-reads the states of the streams the poll loop was told changed (see StateChangeNotices),
 * or that are new to its list, one by one instead of every state: ids told while reads run are
 * read after them, each once however often told. {@link idle} resolves once none is left.
 */
export class ToldStateReads {
  private readonly waiting = new Set<string>();
  private running: Promise<void> | undefined;

  constructor(private readonly options: ToldStateReadsOptions) {}

  /** Reads the states of `streamIds` soon (from the next turn of the event loop). */
  read(streamIds: Iterable<string>): void {
    for (const streamId of streamIds) this.waiting.add(streamId);
    if (this.waiting.size > 0) this.running ??= this.drain();
  }

  /** Resolves once every read asked for so far has been applied or has failed. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.size > 0) {
        await Promise.resolve();
        const streamIds = [...this.waiting];
        this.waiting.clear();
        await mapWithConcurrency(streamIds, TOLD_STATE_READS_CONCURRENCY, async (streamId) => {
          try {
            const apply = this.options.beginRead(streamId);
            apply(await this.options.store.getStream(streamId));
          } catch (error) {
            this.options.onError(error);
          }
        });
      }
    } finally {
      this.running = undefined;
    }
  }
}
