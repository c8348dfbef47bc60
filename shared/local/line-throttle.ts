/** What a {@link lineThrottle} needs of its output: the time, and a way to run something later. */
export interface ThrottleClock {
  now(): number;
  /** Runs `run` once in `ms`. */
  later(run: () => void, ms: number): void;
}

/** One kind of line, throttled (see {@link lineThrottle}). */
export interface LineThrottle<T, S> {
  /** Writes `item`'s line at once, or adds it to the summary of the quiet time. */
  add(item: T): void;
  /** Writes the summary of what was added since the last line, if anything was. */
  flush(): void;
  /** The summary of the quiet time so far, not written yet (it may be changed): undefined if none. */
  pending(): S | undefined;
}

/**
 * One kind of line written at most once per `everyMs`: the first at once, what comes during
 * the quiet time after it summed up (`start`, then `add` per item) in one line at its end
 * (`writeSummary`). So a thousand streams failing alike write two lines, not a thousand.
 */
export function lineThrottle<T, S>(
  clock: ThrottleClock,
  everyMs: number,
  lines: {
    writeOne: (item: T) => void;
    start: (item: T) => S;
    add: (summary: S, item: T) => void;
    writeSummary: (summary: S) => void;
    /** Whether a summary has nothing left to tell (what it held was taken back): not written. */
    isEmpty?: (summary: S) => boolean;
  },
): LineThrottle<T, S> {
  let quietUntil = Number.NEGATIVE_INFINITY;
  let pending: S | undefined;
  let scheduled = false;
  const flush = () => {
    if (pending === undefined) return;
    const summary = pending;
    pending = undefined;
    if (lines.isEmpty?.(summary)) return;
    quietUntil = clock.now() + everyMs;
    lines.writeSummary(summary);
  };
  return {
    add(item: T) {
      const now = clock.now();
      if (now >= quietUntil && pending === undefined) {
        quietUntil = now + everyMs;
        lines.writeOne(item);
        return;
      }
      if (pending === undefined) pending = lines.start(item);
      else lines.add(pending, item);
      if (scheduled) return;
      scheduled = true;
      clock.later(
        () => {
          scheduled = false;
          flush();
        },
        Math.max(0, quietUntil - now),
      );
    },
    flush,
    pending: () => pending,
  };
}
