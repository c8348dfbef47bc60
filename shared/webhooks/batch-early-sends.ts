import type { Clock } from '../clock.ts';

/**
 * Runs a batch's early send once the first of its retries and deferrals comes due while the
 * batch still runs. A batch ends only when every one of its requests has (a hanging endpoint's
 * holds it for the whole request timeout, 15 s by default), and its writes and queue messages
 * went out only then: a retry due 5 s after its failure at another endpoint came 15 s late.
 * Runs are one at a time; none starts once {@link BatchEarlySends.finish} is called.
 */
export class BatchEarlySends {
  /** When the armed timer fires (epoch ms); Infinity when none is armed. */
  private armedFor = Number.POSITIVE_INFINITY;
  private timer: AbortController | undefined;
  private running: Promise<void> = Promise.resolve();
  private finishing = false;

  /** @param send Writes what the batch staged and sends its queued messages; never throws. */
  constructor(
    private readonly clock: Clock,
    private readonly send: () => Promise<void>,
  ) {}

  /** Notes that something of the batch comes due at `dueAt` (epoch ms): it is sent by then. */
  noteDue(dueAt: number): void {
    if (this.finishing || dueAt >= this.armedFor) return;
    this.timer?.abort();
    const timer = new AbortController();
    this.timer = timer;
    this.armedFor = dueAt;
    this.clock.sleep(Math.max(0, dueAt - this.clock.now()), timer.signal).then(
      () => {
        if (this.timer !== timer || this.finishing) return;
        this.timer = undefined;
        this.armedFor = Number.POSITIVE_INFINITY;
        this.running = this.running.then(() => this.send());
      },
      () => undefined,
    );
  }

  /** Starts no more early sends and resolves once the one running, if any, has ended. */
  async finish(): Promise<void> {
    this.finishing = true;
    this.timer?.abort();
    this.timer = undefined;
    await this.running;
  }
}
