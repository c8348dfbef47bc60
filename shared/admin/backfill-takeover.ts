import type { StreamState } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { BackfillEnding } from './backfill-jobs.ts';
import { endingOutcomes } from './backfill-part.ts';

/**
 * Ends, on each earlier job of the streams (their backfill state, as the caller read it, names
 * it), its parts of them where a backfill or reset takes them over, before the taker replaces
 * or deletes their states: the job keeps each part's outcome (`endedBy`, default `superseded`,
 * with the figures its state holds; see {@link endingOutcomes}) and the delivery counter in
 * `delivered`, where its webhooks delivered stop. One strongly consistent read and one write
 * per earlier job, adding only entries the job lacks (see BackfillJobStore.keep): what a job
 * kept first stays. A job gone (expired, or a reset's `reset_…` id) is skipped.
 */
export async function closeEarlierJobs(
  states: readonly (StreamState | undefined)[],
  delivered: Readonly<Record<string, number>>,
  deps: Pick<AdminDeps, 'backfills' | 'clock'>,
  endedBy: BackfillEnding = 'superseded',
): Promise<void> {
  const byJob = new Map<string, StreamState[]>();
  for (const state of states) {
    const jobId = state?.backfill?.jobId;
    if (state && jobId) byJob.set(jobId, [...(byJob.get(jobId) ?? []), state]);
  }
  const now = deps.clock.now();
  await Promise.all(
    [...byJob].map(async ([jobId, taken]) => {
      const earlier = await deps.backfills.get(jobId);
      if (!earlier) return;
      await deps.backfills.keep(jobId, {
        deliveredUntil: Object.fromEntries(
          taken.map(({ streamId }) => [streamId, delivered[streamId] ?? 0]),
        ),
        outcomes: endingOutcomes(earlier, taken, endedBy, now),
      });
    }),
  );
}
