import type { StreamState } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import { endingOutcomes } from './backfill-part.ts';

/**
 * Keeps, on each backfill job that `states` name, the outcome of their parts (`removed`, see
 * {@link endingOutcomes}), before a connection's removal deletes those states, which hold the
 * parts' counters: the job's totals keep what the streams read and published until then. One
 * strongly consistent read and at most one write per job, adding only outcomes the job lacks; a
 * job gone (expired, or a reset's `reset_…` id) is skipped. Safe to repeat: an outcome kept stays
 * as it was.
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
      const outcomes = endingOutcomes(job, states, 'removed', now);
      if (Object.keys(outcomes).length === 0) return;
      await deps.backfills.keep(jobId, { outcomes });
    }),
  );
}
