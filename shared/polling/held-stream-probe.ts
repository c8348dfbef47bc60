import type { Clock } from '../clock.ts';

/**
 * While streams are held (see PollLoopOptions.probeWrites), how long the loop waits between
 * tries of its own write to the store after one failed: the longest a held stream waits for its
 * next poll once the store takes writes again, where its backoff reaches 30 minutes.
 */
export const HELD_STORE_PROBE_MS = 5_000;

/** A held stream as the probe sees it: released by bringing `retryAt` forward to now. */
export interface ReleasableHold {
  readonly streamId: string;
  retryAt: number;
}

/** What a {@link HeldStreamProbe} needs of the loop it serves. */
export interface HeldStreamProbeOptions {
  /** The loop's own small write to the store (PollLoopOptions.probeWrites); none: never probes. */
  probeWrites: (() => Promise<void>) | undefined;
  /** The streams held now, by id: the probe reads them and brings their `retryAt` forward. */
  held: ReadonlyMap<string, ReleasableHold>;
  clock: Pick<Clock, 'now'>;
  /** A held stream whose `retryAt` the probe brought forward to now (its due time follows). */
  onReleased(streamId: string): void;
  /** The store took the probe's write after refusing one: `released` held streams are due. */
  onStoreWritable?: (released: number) => void;
}

/**
 * The poll loop's probe of the store's writes while streams are held: holds are counted; a probe
 * covers those made before it; a failed one marks the store refusing (the next waits
 * {@link HELD_STORE_PROBE_MS}), and the first that goes through afterwards makes every held
 * stream due at once. Holds a probe that went through covers (the store took writes: their
 * failures are their own) are not probed again. One probe at a time.
 */
export class HeldStreamProbe {
  private holds = 0;
  private probedThrough = 0;
  /** Whether the last probe failed (none went through since). */
  private refusing = false;
  private nextProbeAt = Number.NEGATIVE_INFINITY;
  private probe: Promise<void> | undefined;

  constructor(private readonly options: HeldStreamProbeOptions) {}

  /** A stream was held (its failure could not be stored): the next probe covers it. */
  countHold(): void {
    this.holds += 1;
  }

  /**
   * Starts a probe when one may tell something: streams are held, none is in flight, the wait
   * after a failed one is over, and there are holds not probed yet or the store refused the last.
   */
  probeIfDue(): void {
    const { probeWrites, held, clock } = this.options;
    if (!probeWrites || this.probe || held.size === 0 || clock.now() < this.nextProbeAt) return;
    // Holds not probed yet, or refused by the last probe: nothing to learn otherwise.
    if (this.holds === this.probedThrough && !this.refusing) return;
    this.probedThrough = this.holds;
    // A probe that throws before its promise (not an `async` function) is refused all the same.
    this.probe = new Promise<void>((resolve) => resolve(probeWrites()))
      .then(
        () => {
          if (!this.refusing) return;
          this.refusing = false;
          const released = this.releaseAll(clock.now());
          if (released > 0) this.options.onStoreWritable?.(released);
        },
        () => {
          this.refusing = true;
          this.nextProbeAt = clock.now() + HELD_STORE_PROBE_MS;
        },
      )
      .finally(() => {
        this.probe = undefined;
      });
  }

  /** The probe in flight, if any (it never rejects): what stopping the loop waits for. */
  inFlight(): Promise<void> | undefined {
    return this.probe;
  }

  /**
   * Every stream held: also those held since the probe failed, their tries refused as its write
   * was, whose backoff may have reached 30 minutes. Returns how many were released.
   */
  private releaseAll(now: number): number {
    let released = 0;
    for (const hold of this.options.held.values()) {
      if (hold.retryAt <= now) continue;
      hold.retryAt = now;
      this.options.onReleased(hold.streamId);
      released += 1;
    }
    return released;
  }
}
