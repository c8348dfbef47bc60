/** The longest a drain goes on while deliveries still arrive (see drainOutstanding). */
export const DRAIN_MOST_MS = 30 * 60_000;

/**
 * Waits until `outstanding()` (what the run still awaits at the receiver) is 0, or it has not
 * fallen for `stallMs`, or DRAIN_MOST_MS have passed: a long backlog (an emitting backfill's
 * thousands of `created` over an endpoint paused by its 429s) drains as long as it moves, where
 * a fixed timeout ended runs that were still delivering. Returns the outstanding count it ended
 * with.
 */
export async function drainOutstanding(
  outstanding: () => number,
  stallMs: number,
  sleepFor: (ms: number) => Promise<unknown> = (ms) =>
    new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => number = Date.now,
): Promise<number> {
  const deadline = now() + DRAIN_MOST_MS;
  let fewest = outstanding();
  let movedAt = now();
  while (fewest > 0 && now() - movedAt < stallMs && now() < deadline) {
    await sleepFor(250);
    const left = outstanding();
    if (left < fewest) {
      fewest = left;
      movedAt = now();
    }
  }
  return fewest;
}
