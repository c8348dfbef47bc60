/**
 * Records the local poll loop holds in flight at most by default (`POLL_MAX_RECORDS_IN_FLIGHT`):
 * pages being fetched, diffed, published and stored. About 20 pages of 1,000 records, which is
 * ten busy streams with one page ahead each: more than two cores can diff at once, where 128
 * polls of busy streams could otherwise hold two or three pages each.
 */
export const RECORDS_IN_FLIGHT_DEFAULT = 20_000;

/** What a stream's page is taken to hold before it is read, when nothing better is known. */
const UNKNOWN_STREAM_ESTIMATE_FLOOR = 1;

/** A claim on part of a {@link RecordBudget}, held while a page is in flight. */
export interface RecordGrant {
  /**
   * Sets the claim to what the page turned out to hold: less gives the rest back at once;
   * more is taken without waiting (the page is already in memory, and waiting while holding it
   * could deadlock), so new pages wait until the budget is back under its capacity.
   */
  resize(records: number): void;
  /** Gives the claim back; later calls do nothing. */
  release(): void;
}

interface Waiter {
  amount: number;
  grant: (value: RecordGrant) => void;
}

/**
 * A budget of records in flight shared by every poll of a process: a poll claims what its next
 * page is expected to hold before it asks for that page, and gives it back once the page is
 * stored, so many concurrent polls of busy streams cannot hold many full pages at once (1,000
 * hotels of one chain, each poll with a page of the chain's changes), while quiet polls,
 * expected to hold a few records, are not held back. A page is expected to hold what the
 * stream's last page held, else what the last page of its entity type held, else a full page.
 * Waiters are served in order, each as soon as it fits (a page's claim is at most its page size,
 * 1,000, far below the budget); a claim larger than the whole budget is served when nothing else
 * is held.
 * @example const grant = await budget.take(budget.estimate('local:customer', 'customer', 1000))
 */
export class RecordBudget {
  private held = 0;
  private readonly waiting: Waiter[] = [];
  private readonly lastPageOfStream = new Map<string, number>();
  private readonly lastPageOfType = new Map<string, number>();

  constructor(readonly capacity: number = RECORDS_IN_FLIGHT_DEFAULT) {}

  /** Records held now (for tests and metrics). */
  get inFlight(): number {
    return this.held;
  }

  /** What the stream's next page is expected to hold, at most `requested` (its page size). */
  estimate(streamId: string, entityType: string, requested: number): number {
    const known = this.lastPageOfStream.get(streamId) ?? this.lastPageOfType.get(entityType);
    return Math.min(requested, Math.max(UNKNOWN_STREAM_ESTIMATE_FLOOR, known ?? requested));
  }

  /** Notes what a page of the stream held, for the next estimates. */
  observe(streamId: string, entityType: string, records: number): void {
    this.lastPageOfStream.set(streamId, records);
    this.lastPageOfType.set(entityType, records);
  }

  /** Claims `amount` records, waiting until they fit; rejects if `signal` aborts first. */
  take(amount: number, signal?: AbortSignal): Promise<RecordGrant> {
    signal?.throwIfAborted();
    if (this.waiting.length === 0 && this.fits(amount)) return Promise.resolve(this.grant(amount));
    return new Promise<RecordGrant>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index < 0) return;
        this.waiting.splice(index, 1);
        reject(signal?.reason);
        this.serve();
      };
      // The signal outlives the claim (it is the connection's): its listener goes with the grant.
      const waiter: Waiter = {
        amount,
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.serve();
    });
  }

  private fits(amount: number): boolean {
    return this.held === 0 || this.held + amount <= this.capacity;
  }

  private grant(amount: number): RecordGrant {
    this.held += amount;
    let claimed = amount;
    let released = false;
    return {
      resize: (records) => {
        if (released) return;
        this.held += records - claimed;
        claimed = records;
        this.serve();
      },
      release: () => {
        if (released) return;
        released = true;
        this.held -= claimed;
        this.serve();
      },
    };
  }

  /** Serves waiters in order, each that fits (a large one does not hold back a small one). */
  private serve(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i]!;
      if (!this.fits(waiter.amount)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      waiter.grant(this.grant(waiter.amount));
    }
  }
}
