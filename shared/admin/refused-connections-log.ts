/** The shortest time between two lines about connections refused at the cap. */
export const REFUSED_CONNECTIONS_LOG_INTERVAL_MS = 30_000;

/** The timer functions {@link RefusedConnectionsLog} runs on (the global ones by default). */
export interface LogTimers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: LogTimers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const handle = setTimeout(run, ms);
    // A line still to come never keeps the process alive.
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The line about `count` connections refused at a cap of `cap` held at once. Pure.
 * @example refusedConnectionsLine('admin API', 3, 128) // 'admin API refused 3 connections: it holds at most 128 at once'
 */
export function refusedConnectionsLine(server: string, count: number, cap: number): string {
  return `${server} refused ${count} connection${count === 1 ? '' : 's'}: it holds at most ${cap} at once`;
}

/**
 * Logs connections a server refused at its connection cap, summarized: the first refusal after
 * a quiet spell is logged at once, those that follow within
 * {@link REFUSED_CONNECTIONS_LOG_INTERVAL_MS} are counted and logged as one line when it has
 * passed, so a flood writes one line every 30 s at most, with the count refused.
 * @example const refusals = new RefusedConnectionsLog('admin API', 128, log); server.on('drop', () => refusals.refused());
 */
export class RefusedConnectionsLog {
  private lastLoggedAt = Number.NEGATIVE_INFINITY;
  private pending = 0;
  private timer: unknown;

  constructor(
    private readonly server: string,
    private readonly cap: number,
    private readonly log: (line: string) => void,
    private readonly timers: LogTimers = globalTimers,
  ) {}

  /** Counts one connection refused, logging it now or with the next summary. */
  refused(): void {
    this.pending += 1;
    const due = this.lastLoggedAt + REFUSED_CONNECTIONS_LOG_INTERVAL_MS;
    const now = this.timers.now();
    if (now >= due) {
      this.flush();
      return;
    }
    this.timer ??= this.timers.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, due - now);
  }

  /** Logs the refusals not logged yet, if any, and stops the timer (the server is closing). */
  close(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }

  private flush(): void {
    if (this.pending === 0) return;
    const count = this.pending;
    this.pending = 0;
    this.lastLoggedAt = this.timers.now();
    try {
      this.log(refusedConnectionsLine(this.server, count, this.cap));
    } catch {
      // A line that cannot be written is dropped: refusing goes on.
    }
  }
}
