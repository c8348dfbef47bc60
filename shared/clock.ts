/** Source of time, injected into every piece of logic that needs "now" or waits. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Source of uniformly distributed numbers in [0, 1), injected instead of `Math.random`. */
export type RandomSource = () => number;

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepOnTimer(ms, signal, false),
};

/**
 * The wall clock whose sleeps keep no process alive (their timers unref'd): for background work
 * that a process may end without (a sleep it never wakes from as it exits).
 */
export const backgroundClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepOnTimer(ms, signal, true),
};

function sleepOnTimer(ms: number, signal: AbortSignal | undefined, unref: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    if (unref) timer.unref();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Math.random`, for production composition roots only. */
export const systemRandom: RandomSource = () => Math.random();

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told to. `sleep` resolves when `advance` passes its
 * wake time, so tests assert on waits without waiting.
 * @example const clock = new ManualClock(0); const p = clock.sleep(2000); await clock.advance(2000);
 */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        wakeAt: this.current + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of pending sleeps (lets a test wait until code under test is parked). */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }

  /** Moves time forward by `ms`, waking sleepers in order and letting their continuations run. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.sleepers.sort((a, b) => a.wakeAt - b.wakeAt);
      const next = this.sleepers[0];
      if (!next || next.wakeAt > target) break;
      this.sleepers.shift();
      this.current = Math.max(this.current, next.wakeAt);
      next.resolve();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Sets the time directly (never backwards). */
  async set(epochMs: number): Promise<void> {
    await this.advance(Math.max(0, epochMs - this.current));
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}

/** A seeded deterministic random source (mulberry32), for simulators and tests. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
