import type { StreamState } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { BackfillEnding, BackfillJobEntries } from './backfill-jobs.ts';
import { endingOutcomes } from './backfill-part.ts';

/**
 * Ends, on each job the streams' backfill states name (as the caller read them), its parts of
 * those streams, just before the caller deletes or replaces their states, which hold the parts'
 * counters: a connection's removal (`removed`), or a later backfill or reset taking the streams
 * over (`superseded`). Each job keeps each part's outcome with the figures its state holds (see
 * {@link endingOutcomes}), and with `until` (a takeover's, epoch ms) the detection instant from
 * which the events of those streams are no longer the job's (its webhook figures stop there). One strongly consistent read and at most one write per job, adding
 * only entries the job lacks (see BackfillJobStore.keep): what a job kept first stays, so it is
 * safe to repeat. A job gone (expired, or a reset's `reset_…` id) is skipped.
 */
export async function endBackfillParts(
  states: readonly (StreamState | undefined)[],
  endedBy: BackfillEnding,
  deps: Pick<AdminDeps, 'backfills' | 'clock'>,
  until?: number,
): Promise<void> {
  const byJob = new Map<string, StreamState[]>();
  for (const state of states) {
    const jobId = state?.backfill?.jobId;
    if (state && jobId) byJob.set(jobId, [...(byJob.get(jobId) ?? []), state]);
  }
  const now = deps.clock.now();
  await Promise.all(
    [...byJob].map(async ([jobId, ended]) => {
      const job = await deps.backfills.get(jobId);
      if (!job) return;
      const entries: BackfillJobEntries = {
        outcomes: endingOutcomes(job, ended, endedBy, now),
        ...(until !== undefined && {
          deliveredUntil: Object.fromEntries(ended.map(({ streamId }) => [streamId, until])),
        }),
      };
      if (Object.keys(entries.outcomes ?? {}).length === 0 && !entries.deliveredUntil) return;
      await deps.backfills.keep(jobId, entries);
    }),
  );
}
