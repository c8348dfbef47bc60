/** Requests at a lowered Count that succeed in a row before it is tried twice as large again. */
export const COUNT_REGROW_AFTER = 20;

/** What one operation has learnt of the Count the connector answers in time. */
interface Ceiling {
  count: number;
  /** Successes in a row at `count` since it was set. */
  successes: number;
}

/**
 * The largest `Limitation.Count` each operation is answered at before the connector's timeout
 * error, remembered between requests (one per client: one AccessToken). The contract's answer
 * to the timeout error is to halve Count and retry; without a memory every poll of a large
 * page would spend the same failed requests again (1,000 → 500 → 250 → 125 is three wasted
 * requests of four, on every cycle of every stream). A halved Count is kept for the
 * operation's next requests, and after {@link COUNT_REGROW_AFTER} successes in a row it is
 * doubled again (the server's load passes), up to what callers ask for.
 */
export class CountCeilings {
  private readonly byOperation = new Map<string, Ceiling>();

  /** The Count to send for `requested`: the operation's ceiling when lower. */
  countFor(operation: string, requested: number): number {
    const ceiling = this.byOperation.get(operation);
    return ceiling === undefined ? requested : Math.min(requested, ceiling.count);
  }

  /**
   * Records a request of `operation` sent with Count `asked` and answered after being lowered
   * to `answered` (less than `asked` when timeout errors halved it).
   */
  answered(operation: string, asked: number, answered: number): void {
    const ceiling = this.byOperation.get(operation);
    if (answered < asked) {
      this.byOperation.set(operation, { count: answered, successes: 0 });
      return;
    }
    if (ceiling === undefined || answered < ceiling.count) return;
    ceiling.successes += 1;
    if (ceiling.successes < COUNT_REGROW_AFTER) return;
    ceiling.count *= 2;
    ceiling.successes = 0;
  }
}
