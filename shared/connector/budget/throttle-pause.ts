import { SLOW_WINDOWS_AFTER_THROTTLE } from './budget-pacing.ts';

/**
 * A 429's hold on a token's budget in one process: no claim is served before its Retry-After,
 * and the pace stays lower for {@link SLOW_WINDOWS_AFTER_THROTTLE} windows after it.
 */
export class ThrottlePause {
  private pausedUntilMs = 0;
  private slowedUntilMs = 0;

  /** `windowMs`: the server's window, which the lower pace lasts a number of. */
  constructor(private readonly windowMs: number) {}

  /** Holds every claim until `untilMs`, then keeps a lower pace for a while; never shortens. */
  pauseUntil(untilMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    this.slowedUntilMs = Math.max(
      this.slowedUntilMs,
      untilMs + SLOW_WINDOWS_AFTER_THROTTLE * this.windowMs,
    );
  }

  /** When claims may go again if they are held at `now`; null when they are not. */
  pausedUntil(now: number): number | null {
    return this.pausedUntilMs > now ? this.pausedUntilMs : null;
  }

  /** When the lower pace ends if it holds at `now`; null when it does not. */
  slowedUntil(now: number): number | null {
    return this.slowedUntilMs > now ? this.slowedUntilMs : null;
  }
}
