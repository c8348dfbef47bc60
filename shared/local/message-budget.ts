/**
 * A count of messages that may be held at once over every worker of an event source loop: a
 * worker takes part of it before it receives (as much as a batch may hold, or what is left) and
 * gives back what it did not receive, then the rest once its batch is settled. Many small
 * batches (a quiet lane, each waiting on a slow endpoint) may then run at once while a burst's
 * large batches stay as few as before: what is held in memory is bounded by messages, not by
 * batches.
 */
export class MessageBudget {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  /** @param signal Ends every wait when it aborts (one listener for all waiting workers). */
  constructor(
    total: number,
    private readonly signal?: AbortSignal,
  ) {
    this.available = total;
    signal?.addEventListener('abort', () => this.wakeAll(), { once: true });
  }

  /**
   * Takes up to `wanted` messages' worth (at least one), waiting while none is left; resolves 0
   * once the signal has aborted.
   */
  async take(wanted: number): Promise<number> {
    while (this.available <= 0) {
      if (this.signal?.aborted) return 0;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    if (this.signal?.aborted) return 0;
    const taken = Math.min(wanted, this.available);
    this.available -= taken;
    return taken;
  }

  /** Gives `count` back and wakes the workers waiting for some. */
  give(count: number): void {
    if (count <= 0) return;
    this.available += count;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
