import type { StreamState } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { BackfillJob, BackfillStreamOutcome } from './backfill-jobs.ts';
import { endedOutcome } from './backfill-part.ts';

/**
 * The outcomes `job` is to keep for those of `states` whose backfill part is the job's, as their
 * connection is removed at `now`: a running part ends `removed` with the figures its state
 * holds, a completed one keeps its own end (see {@link endedOutcome}). Streams with an outcome
 * kept already, or whose part belongs to another job, are left out. Pure.
 * @example removalOutcomes(job, [state], now) // { 'hotel-1:customer': { endedBy: 'removed', recordsRead: 120, … } }
 */
export function removalOutcomes(
  job: BackfillJob,
  states: readonly StreamState[],
  now: number,
): Record<string, BackfillStreamOutcome> {
  const outcomes: Record<string, BackfillStreamOutcome> = {};
  for (const state of states) {
    if (state.backfill?.jobId !== job.id || !job.streamIds.includes(state.streamId)) continue;
    const outcome = endedOutcome(job, state.streamId, state, false, now);
    if (outcome) outcomes[state.streamId] = outcome;
  }
  return outcomes;
}

/**
 * Keeps, on each backfill job that `states` name, the outcome of their parts (see
 * {@link removalOutcomes}), before a connection's removal deletes those states, which hold the
 * parts' counters: the job's totals keep what the streams read and published until then. One
 * strongly consistent read and at most one write per job; a job gone (expired, or a reset's
 * `reset_…` id) is skipped. Safe to repeat: an outcome kept stays as it was.
 */
export async function keepRemovedStreamOutcomes(
  states: readonly StreamState[],
  deps: Pick<AdminDeps, 'backfills' | 'clock'>,
): Promise<void> {
  const jobIds = new Set(states.flatMap((state) => state.backfill?.jobId ?? []));
  const now = deps.clock.now();
  await Promise.all(
    [...jobIds].map(async (jobId) => {
      const job = await deps.backfills.get(jobId);
      if (!job) return;
      const outcomes = removalOutcomes(job, states, now);
      if (Object.keys(outcomes).length === 0) return;
      await deps.backfills.put({ ...job, outcomes: { ...job.outcomes, ...outcomes } });
    }),
  );
}
