/**
 * How long no page of bulk reading must be in hand before the bulk lane receives again. The
 * reading holds a page nearly all the time while the connector answers at once (the next page,
 * read ahead, is there when the last is stored); a gap shorter than this is the step between two
 * pages, and a receive in it would start up to 800 deliveries beside the next page.
 */
export const BULK_QUIET_MS = 100;

/**
 * The pages of bulk reading (a first sync, a backfill, a catch-up window) that this process
 * holds: read from the connector and not yet stored. The local run's bulk dispatch lane takes
 * no messages while one is held, nor until {@link BULK_QUIET_MS} after the last was stored (see
 * {@link BulkPageWork.idle}). On the two cores a local run has, the reading then gets the CPU
 * and its events wait on disk, up to the backlog bound (BRIDGE_MAX_BACKLOG), instead of the
 * reading and the deliveries each slowing the other: an emitting backfill of 100,000 customers
 * through `change-bridge start` read in 17.7 s against 41.8-43.8 s, and was delivered whole
 * sooner too (59.4 s against 66.4-67.6 s). The lane receives whenever the reading waits (for
 * the connector, its budget, the backlog bound) and once it ends. Live changes have a lane of
 * their own, which never waits here.
 * @example const end = work.begin(); try { await storePage(); } finally { end(); }
 */
export class BulkPageWork {
  #held = 0;
  #idle: (() => void)[] = [];
  /** Set from the last page's end until {@link BULK_QUIET_MS} later (or the next page's start). */
  #quiet: NodeJS.Timeout | undefined;

  constructor(private readonly quietMs = BULK_QUIET_MS) {}

  /** Notes a page taken in hand; returns what notes it stored or dropped (once; later calls do nothing). */
  begin(): () => void {
    this.#held++;
    clearTimeout(this.#quiet);
    this.#quiet = undefined;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#held--;
      if (this.#held > 0) return;
      this.#quiet = setTimeout(() => {
        this.#quiet = undefined;
        const waiting = this.#idle;
        this.#idle = [];
        for (const resume of waiting) resume();
      }, this.quietMs);
      // A stopping process does not wait for it.
      this.#quiet.unref();
    };
  }

  /** Whether no page is held and none was for {@link BULK_QUIET_MS}. */
  get isIdle(): boolean {
    return this.#held === 0 && this.#quiet === undefined;
  }

  /** Resolves once {@link isIdle} (at once if it is), or as `signal` aborts. */
  idle(signal: AbortSignal): Promise<void> {
    if (this.isIdle || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const resume = () => {
        signal.removeEventListener('abort', resume);
        resolve();
      };
      signal.addEventListener('abort', resume, { once: true });
      this.#idle.push(resume);
    });
  }
}
