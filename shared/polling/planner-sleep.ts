import type { Clock } from '../clock.ts';
import { plannerWakeFloorMs } from './schedule.ts';

/** What a {@link PlannerSleep} needs of the loop it serves. */
export interface PlannerSleepOptions {
  clock: Clock;
  /** How often the planner looks for due streams. */
  tickMs: number;
  /** The loop's stop: it ends the current sleep, and no other starts. */
  signal: AbortSignal;
}

/**
 * The poll loop's planner between two ticks: it sleeps until the wake time it planned, which a
 * finished poll may bring forward ({@link wakeBy}), never sooner than {@link plannerWakeFloorMs}
 * after the last tick began.
 */
export class PlannerSleep {
  /** When the current sleep ends. */
  private plannedWakeAt = Number.NEGATIVE_INFINITY;
  private tickStartedAt = Number.NEGATIVE_INFINITY;
  /** Aborts the current sleep, to sleep again until the new {@link plannedWakeAt}. */
  private sleeping: AbortController | undefined;

  constructor(private readonly options: PlannerSleepOptions) {
    options.signal.addEventListener('abort', () => this.sleeping?.abort(), { once: true });
  }

  /** A tick began at `at`: the floor of {@link wakeBy} counts from it. */
  tickStarted(at: number): void {
    this.tickStartedAt = at;
  }

  /**
   * Brings the next tick forward to `readyAt` (a stream's poll ended and it is due then: one
   * whose poll outlasted its interval, or whose backfill slice ended, is due at once), never
   * sooner than {@link plannerWakeFloorMs} after the last tick began. A later time changes nothing.
   */
  wakeBy(readyAt: number): void {
    const at = Math.max(readyAt, this.tickStartedAt + plannerWakeFloorMs(this.options.tickMs));
    if (at >= this.plannedWakeAt) return;
    this.plannedWakeAt = at;
    this.sleeping?.abort();
  }

  /**
   * Sleeps until `wakeAt`, or the earlier time {@link wakeBy} sets meanwhile, or the stop.
   * `wakeAt` replaces a time {@link wakeBy} set before the call: the loop plans it from the
   * tick's look at what is due, which takes the polls that ended before it into account, and
   * awaits nothing between that look and this call.
   */
  async sleepUntil(wakeAt: number): Promise<void> {
    this.plannedWakeAt = wakeAt;
    const { clock, signal } = this.options;
    for (;;) {
      const remaining = this.plannedWakeAt - clock.now();
      if (remaining <= 0 || signal.aborted) return;
      this.sleeping = new AbortController();
      await clock.sleep(remaining, this.sleeping.signal).catch(() => undefined);
      this.sleeping = undefined;
    }
  }
}
