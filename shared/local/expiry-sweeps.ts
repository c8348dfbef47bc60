import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.ts';
import { describeThrown } from '../errors.ts';
import { removeExpiredItems } from './expired-items.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';
import type { Reporter } from './reporter.ts';

/**
 * When the local run first sweeps its store for expired items: 10 minutes in, past a start's
 * busiest minutes (a first sync, a backfill) yet within a short run.
 */
export const FIRST_EXPIRY_SWEEP_AFTER_MS = 10 * 60_000;
/** How often it sweeps after that. DynamoDB's own TTL removes expired items within days. */
export const EXPIRY_SWEEP_EVERY_MS = 6 * 60 * 60_000;

/** What {@link startExpirySweeps} needs. */
export interface ExpirySweepsOptions {
  /** One sweep (removeExpiredItems, say): ends early when `signal` aborts; how many it removed. */
  sweep: (signal: AbortSignal) => Promise<number>;
  /** Told after a sweep that removed something. */
  onRemoved: (removed: number) => void;
  /** Told when a sweep fails (the next one runs on time). */
  onError: (error: unknown) => void;
  /** Default {@link FIRST_EXPIRY_SWEEP_AFTER_MS}. */
  firstAfterMs?: number;
  /** Default {@link EXPIRY_SWEEP_EVERY_MS}. */
  everyMs?: number;
}

/** Running expiry sweeps. */
export interface ExpirySweeps {
  /** Ends a sweep under way between two pages, waits for it, and schedules none. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Sweeps the local store for expired items now and then, one sweep at a time: first after
 * `firstAfterMs`, then every `everyMs` after the last one ended. Its timers are unref'd: they
 * keep no process alive.
 * @example const sweeps = startExpirySweeps({ sweep, onRemoved, onError }); await sweeps.stop();
 */
export function startExpirySweeps(options: ExpirySweepsOptions): ExpirySweeps {
  const stopped = new AbortController();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (afterMs: number): void => {
    if (stopped.signal.aborted) return;
    timer = setTimeout(run, afterMs);
    timer.unref();
  };
  const run = (): void => {
    running = options
      .sweep(stopped.signal)
      .then((removed) => {
        if (removed > 0) options.onRemoved(removed);
      }, options.onError)
      .finally(() => {
        running = undefined;
        schedule(options.everyMs ?? EXPIRY_SWEEP_EVERY_MS);
      });
  };
  schedule(options.firstAfterMs ?? FIRST_EXPIRY_SWEEP_AFTER_MS);

  return {
    async stop() {
      stopped.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * The local run's expiry sweeps over its one table (see removeExpiredItems), told on the console:
 * its data dir keeps events and deliveries for their 30 days' retention, not for good.
 */
export function startLocalExpirySweeps(
  client: DynamoDBClient,
  clock: Clock,
  reporter: Pick<Reporter, 'info' | 'warn'>,
): ExpirySweeps {
  return startExpirySweeps({
    sweep: (signal) =>
      removeExpiredItems({
        client,
        tableName: LOCAL_TABLE_NAME,
        nowSeconds: () => Math.floor(clock.now() / 1000),
        signal,
      }),
    onRemoved: (removed) =>
      reporter.info(`removed ${removed} expired items (past their retention) from the local store`),
    onError: (error) => reporter.warn(`removing expired items failed: ${describeThrown(error)}`),
  });
}
