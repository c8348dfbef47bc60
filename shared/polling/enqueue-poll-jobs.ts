import type { SQSClient } from '@aws-sdk/client-sqs';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { forEachConcurrently } from '../concurrency.ts';
import { BridgeError } from '../errors.ts';
import type { EntryRefusal } from '../publish/batch-delivery.ts';
import {
  backoffDelayMs,
  DEFAULT_RETRY_OPTIONS,
  type RetryOptions,
} from '../publish/retry-backoff.ts';
import { SQS_BATCH_MAX_ENTRIES, sendSqsBatch } from '../publish/sqs-publisher.ts';
import type { ConnectionJob } from './plan-connections.ts';
import type { PollJob } from './poll-job.ts';
import { chunk } from './strategies/paged-records.ts';

/** SQS delays a message by at most 15 minutes. */
export const SQS_MAX_DELAY_MS = 900_000;

/**
 * How far ahead the planner plans: up to its next run, one schedule rate (PLANNER_RATE; a
 * minute when unset), at most SQS's longest delay. A job goes out delayed to its earliest due
 * stream, so a healthy job waits in the queue at most this long before a poller may take it;
 * the next run plans what is due after that, so two runs never plan the same due time.
 * @example plannerLookaheadMs(3_600_000) === 900_000
 */
export function plannerLookaheadMs(rateMs: number | undefined): number {
  return Math.min(rateMs ?? 60_000, SQS_MAX_DELAY_MS);
}

/**
 * SendMessageBatch requests in flight at once: 10,000 jobs are 1,000 requests, about 20 s one
 * after another at 20 ms each (most of the planner's 30 s timeout), about 2 s ten at a time.
 */
export const POLL_JOB_SEND_CONCURRENCY = 10;

/**
 * Whole SendMessageBatch requests that may fail (after the SDK's own retries) before the rest
 * are left unsent: one failure leaves its ten jobs to the next run and the others are still
 * sent; this many mean SQS is out of reach, and the next run (pollRateMinutes on) tries them all.
 */
export const POLL_JOB_REQUEST_FAILURES_MAX = 3;

/** Options of {@link enqueuePollJobs}. */
export interface EnqueuePollJobsOptions {
  client: SQSClient;
  queueUrl: string;
  /** Requests in flight at once (default {@link POLL_JOB_SEND_CONCURRENCY}). */
  concurrency?: number;
  retry?: Partial<RetryOptions>;
  clock?: Clock;
  random?: RandomSource;
}

/**
 * Sends one poll job message per job, 10 per SendMessageBatch, `concurrency` requests at once,
 * in the order given (the planner puts the most overdue first). Entries SQS refuses for a
 * transient reason (throttling, internal failure) are sent again alone with jittered backoff,
 * up to `retry.maxAttempts` attempts; a refused entry, or a whole request that failed (after
 * the SDK's retries), never stops the other jobs, until {@link POLL_JOB_REQUEST_FAILURES_MAX}
 * requests have failed.
 * @throws BridgeError (retryable) naming how many jobs stayed unsent, once every other job is
 * sent; the error of the request that made {@link POLL_JOB_REQUEST_FAILURES_MAX} failures,
 * which stops sending.
 */
export async function enqueuePollJobs(
  jobs: readonly ConnectionJob[],
  options: EnqueuePollJobsOptions,
): Promise<void> {
  const retry = { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const unsent: { job: ConnectionJob; refusal: EntryRefusal }[] = [];
  let failedRequests = 0;
  const sendBatch = async (batch: readonly ConnectionJob[]): Promise<void> => {
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt++) {
      let refusals: Awaited<ReturnType<typeof sendSqsBatch>>;
      try {
        refusals = await sendSqsBatch(options.client, options.queueUrl, pending.map(toEntry));
      } catch (error) {
        if (++failedRequests >= POLL_JOB_REQUEST_FAILURES_MAX) throw error;
        const refusal = {
          code: error instanceof Error ? error.name : 'Error',
          message: error instanceof Error ? error.message : String(error),
          retryable: true,
        };
        for (const job of pending) unsent.push({ job, refusal });
        return;
      }
      const again: ConnectionJob[] = [];
      pending.forEach((job, index) => {
        const refusal = refusals.get(index);
        if (!refusal) return;
        if (refusal.retryable && attempt < retry.maxAttempts) again.push(job);
        else unsent.push({ job, refusal });
      });
      if (again.length > 0) await clock.sleep(backoffDelayMs(attempt, random, retry));
      pending = again;
    }
  };
  await forEachConcurrently(
    chunk(jobs, SQS_BATCH_MAX_ENTRIES),
    options.concurrency ?? POLL_JOB_SEND_CONCURRENCY,
    sendBatch,
  );
  if (unsent.length > 0) {
    const { job, refusal } = unsent[0]!;
    throw new BridgeError(
      `could not enqueue ${unsent.length} poll job(s), the first for connection ${job.connectionId} (${refusal.code}: ${refusal.message})`,
      { retryable: true },
    );
  }
}

function toEntry(job: ConnectionJob) {
  return {
    MessageBody: JSON.stringify({
      connectionId: job.connectionId,
      streamIds: job.streamIds,
      dueBy: job.dueBy,
    } satisfies PollJob),
    DelaySeconds: Math.ceil(Math.min(job.delayMs, SQS_MAX_DELAY_MS) / 1000),
  };
}
