import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock.ts';
import type { StateStore } from '../state/state-store.ts';
import { type PurgeResult, purgeRemovedStreams } from './removed-streams.ts';

/** The poll job queue's message that has a poller run the purge of removed streams. */
export const PURGE_JOB = { purge: 'removed-streams' } as const;

/** The lease that keeps purge jobs one at a time (beside the streams' leases, by its own id). */
export const PURGE_LEASE_ID = 'purge:removed-streams';

/** How long the purge lease outlasts the job's deadline (a job killed at its timeout). */
const PURGE_LEASE_SLACK_MS = 60_000;

/**
 * Sends one purge job when a stream awaits its purge (one Query of the removed streams' notes,
 * empty almost always): the planner's run does this after its poll jobs, so the background
 * removal goes on once per run until nothing is left. Returns whether it sent one.
 */
export async function enqueuePurgeJobIfDue(
  store: StateStore,
  sqs: { client: SQSClient; queueUrl: string },
): Promise<boolean> {
  if ((await store.listRemovedStreams(1)).length === 0) return false;
  await sqs.client.send(
    new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: JSON.stringify(PURGE_JOB) }),
  );
  return true;
}

/** What a purge job did; `leased` when another job held the purge (it did nothing). */
export type PurgeJobResult = PurgeResult & { leased: boolean };

/**
 * A purge job (AWS poller): runs purge steps ({@link purgeRemovedStreams}) until nothing is left
 * or the invocation's `deadline`, holding the purge lease so two jobs never purge at once (the
 * second does nothing: `leased`). Cut off, the next planner run sends another job.
 */
export async function runPurgeJob(
  store: StateStore,
  options: { clock: Clock; deadline: number; owner: string },
): Promise<PurgeJobResult> {
  const { clock, deadline, owner } = options;
  const start = clock.now();
  const ttlMs = Math.max(0, deadline - start) + PURGE_LEASE_SLACK_MS;
  const total: PurgeJobResult = {
    streamsPurged: 0,
    snapshotsDeleted: 0,
    done: false,
    leased: false,
  };
  if (!(await store.acquireLease(PURGE_LEASE_ID, owner, ttlMs, start)))
    return { ...total, leased: true };
  try {
    while (clock.now() < deadline) {
      const step = await purgeRemovedStreams(store, { now: () => clock.now(), deadline });
      total.streamsPurged += step.streamsPurged;
      total.snapshotsDeleted += step.snapshotsDeleted;
      total.done = step.done;
      if (step.done) break;
    }
    return total;
  } finally {
    await store.releaseLease(PURGE_LEASE_ID, owner);
  }
}
