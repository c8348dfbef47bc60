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

  constructor(readonly total: number) {
    this.available = total;
  }

  /**
   * Takes up to `wanted` messages' worth (at least one), waiting while none is left; resolves 0
   * when `signal` aborts first.
   */
  async take(wanted: number, signal?: AbortSignal): Promise<number> {
    while (this.available <= 0) {
      if (signal?.aborted) return 0;
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
    const taken = Math.min(wanted, this.available);
    this.available -= taken;
    return taken;
  }

  /** Gives `count` back and wakes the workers waiting for some. */
  give(count: number): void {
    if (count <= 0) return;
    this.available += count;
    for (const wake of this.waiters.splice(0)) wake();
  }
}
