import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { backgroundClock, type Clock } from '../clock.ts';
import { describeThrown } from '../errors.ts';
import { lastExpirySweep, noteExpirySweep, removeExpiredItems } from './expired-items.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';
import type { Reporter } from './reporter.ts';

/**
 * When the local run first looks whether a sweep for expired items is due: a minute in, past a
 * start's first polls, so that runs of a few minutes sweep too when one is due.
 */
export const FIRST_EXPIRY_LOOK_AFTER_MS = 60_000;
/** How long after a sweep the next is due. DynamoDB's own TTL removes expired items within days. */
export const EXPIRY_SWEEP_EVERY_MS = 6 * 60 * 60_000;

/**
 * When the next sweep is due: `everyMs` after the last one, or at once when none is recorded (a
 * store from before sweeps were recorded). Pure.
 * @example nextSweepDueAt(1_000, 5_000, 10_000) === 11_000
 */
export function nextSweepDueAt(lastSweptAt: number | undefined, now: number, everyMs: number) {
  return lastSweptAt === undefined ? now : lastSweptAt + everyMs;
}

/** What {@link startExpirySweeps} needs. */
export interface ExpirySweepsOptions {
  /** One sweep (removeExpiredItems, say): ends early when `signal` aborts; how many it removed. */
  sweep: (signal: AbortSignal) => Promise<number>;
  /** When the store was last swept (epoch ms), as `noteSwept` recorded it; undefined if never. */
  lastSweptAt: () => Promise<number | undefined>;
  /** Records a sweep that ended at `atMs`, for later looks and runs. */
  noteSwept: (atMs: number) => Promise<void>;
  /** Its time and its waits between looks (see startLocalExpirySweeps: unref'd timers). */
  clock: Clock;
  /** Told after a sweep that removed something. */
  onRemoved: (removed: number) => void;
  /** Told when a look or a sweep fails (it looks again `everyMs` later). */
  onError: (error: unknown) => void;
  /** Default {@link FIRST_EXPIRY_LOOK_AFTER_MS}. */
  firstLookAfterMs?: number;
  /** Default {@link EXPIRY_SWEEP_EVERY_MS}. */
  everyMs?: number;
}

/** Running expiry sweeps. */
export interface ExpirySweeps {
  /** Ends a sweep under way between two pages, waits for it, and schedules none. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Sweeps the local store for expired items every `everyMs`, across runs: it first looks
 * `firstLookAfterMs` into the run when the last sweep was (recorded in the store), sweeps if one
 * is due and records it, and looks again when the next is due. One sweep at a time; a sweep cut
 * off by `stop()` is not recorded, so the next run sweeps again. It waits on `clock`.
 * @example const sweeps = startExpirySweeps({ sweep, lastSweptAt, noteSwept, clock, onRemoved, onError }); await sweeps.stop();
 */
export function startExpirySweeps(options: ExpirySweepsOptions): ExpirySweeps {
  const everyMs = options.everyMs ?? EXPIRY_SWEEP_EVERY_MS;
  const stopped = new AbortController();
  /** One look: sweeps when a sweep is due; how long until the next look. */
  const look = async (): Promise<number> => {
    try {
      const lastSweptAt = await options.lastSweptAt();
      const now = options.clock.now();
      const untilDue = nextSweepDueAt(lastSweptAt, now, everyMs) - now;
      if (untilDue > 0) return untilDue;
      const removed = await options.sweep(stopped.signal);
      if (stopped.signal.aborted) return everyMs;
      await options.noteSwept(options.clock.now());
      if (removed > 0) options.onRemoved(removed);
    } catch (error) {
      options.onError(error);
    }
    return everyMs;
  };
  const running = (async () => {
    let nextLookMs = options.firstLookAfterMs ?? FIRST_EXPIRY_LOOK_AFTER_MS;
    while (!stopped.signal.aborted) {
      try {
        await options.clock.sleep(nextLookMs, stopped.signal);
      } catch {
        return;
      }
      nextLookMs = await look();
    }
  })();

  return {
    async stop() {
      stopped.abort();
      await running;
    },
  };
}

/**
 * The local run's expiry sweeps over its one table (see removeExpiredItems), told on the console:
 * its data dir keeps events and deliveries for their 30 days' retention, not for good. A store
 * this run created counts as swept now: nothing in it can have expired.
 */
export async function startLocalExpirySweeps(
  client: DynamoDBClient,
  clock: Clock,
  reporter: Pick<Reporter, 'info' | 'warn'>,
  createdNow: boolean,
): Promise<ExpirySweeps> {
  if (createdNow) await noteExpirySweep(client, LOCAL_TABLE_NAME, clock.now());
  return startExpirySweeps({
    sweep: (signal) =>
      removeExpiredItems({
        client,
        tableName: LOCAL_TABLE_NAME,
        nowSeconds: () => Math.floor(clock.now() / 1000),
        signal,
      }),
    lastSweptAt: () => lastExpirySweep(client, LOCAL_TABLE_NAME),
    noteSwept: (atMs) => noteExpirySweep(client, LOCAL_TABLE_NAME, atMs),
    // Waits on unref'd timers, which keep no process alive; the time is the run's.
    clock: { now: () => clock.now(), sleep: backgroundClock.sleep },
    onRemoved: (removed) =>
      reporter.info(`removed ${removed} expired items (past their retention) from the local store`),
    onError: (error) => reporter.warn(`removing expired items failed: ${describeThrown(error)}`),
  });
}
