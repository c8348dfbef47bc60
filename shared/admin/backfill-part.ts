import type { StreamState } from '../state/state-store.ts';
import type { BackfillEnding, BackfillJob, BackfillStreamOutcome } from './backfill-jobs.ts';

/** Where one stream's part of a backfill job is, as its own backfill state says. */
export interface BackfillPart {
  /** Share of the part's history read, 0 to 1 (1 once done). */
  fraction: number;
  /** Epoch ms the part completed; null while it runs. */
  doneAt: number | null;
  recordsRead: number;
  eventsPublished: number;
  /**
   * Events the stream published since the job started, its part's and its live polls' (the ones
   * whose deliveries the job counts); undefined where the state cannot tell (a pass started before
   * passes noted the stream's count at their start).
   */
  streamEventsPublished: number | undefined;
  /**
   * Records the stream's first sync read, for a pass (about the records it reads again); null
   * for a first sync (the backfill is it) or a state kept before first syncs noted theirs.
   */
  recordsAtFirstSync: number | null;
}

/**
 * Where the stream's own backfill state says its part of `job` is (see StreamBackfillSchema):
 * a pass's own watermark over `[history start, its end)` and its own counters; a first sync's
 * watermark and counters. Undefined when the state is gone or its backfill is not the job's. Pure.
 * @example partOf(job, state)?.recordsRead // 120
 */
export function partOf(job: BackfillJob, state: StreamState | undefined): BackfillPart | undefined {
  const backfill = state?.backfill;
  if (state === undefined || backfill?.jobId !== job.id) return undefined;
  // Writes through the bridge published these in the stream: the dispatcher counts them among
  // its events, and the `created` they sent ahead of a change are the job's.
  const written = job.written?.[state.streamId] ?? { events: 0, announced: 0 };
  if (backfill.kind === 'pass') {
    const span = Date.parse(backfill.endUtc) - job.historyStartMs;
    const read =
      backfill.watermark === null ? 0 : Date.parse(backfill.watermark) - job.historyStartMs;
    // The live polls' since the start, less the ones they sent ahead as the pass's (counted in
    // both), so each event the job waits to see fanned out counts once.
    const live =
      backfill.liveEventsAtStart === undefined
        ? undefined
        : Math.max(
            0,
            (state.eventsPublished ?? 0) -
              backfill.liveEventsAtStart -
              (backfill.eventsAnnounced ?? 0),
          );
    return {
      fraction: backfill.doneAt !== null ? 1 : span > 0 ? clamp01(read / span) : 0,
      doneAt: backfill.doneAt,
      recordsRead: backfill.recordsRead,
      eventsPublished: backfill.eventsPublished + written.announced,
      streamEventsPublished:
        live === undefined ? undefined : backfill.eventsPublished + live + written.events,
      recordsAtFirstSync: state.firstSync?.recordsRead ?? null,
    };
  }
  // A first sync: done once its watermark reaches the job start minus the settle lag (the
  // pollers never place a window end later than now − settle lag), then with its own figures.
  const watermarkMs = state.watermark ? Date.parse(state.watermark) : Number.NaN;
  const done = Number.isFinite(watermarkMs) && watermarkMs >= job.doneAtMs;
  const span = job.startedAt - job.historyStartMs;
  const counters = state.firstSync ?? state;
  return {
    fraction: done
      ? 1
      : Number.isFinite(watermarkMs) && span > 0
        ? clamp01((watermarkMs - job.historyStartMs) / span)
        : 0,
    doneAt: done ? (state.firstSync?.doneAt ?? state.lastSuccessAt ?? job.startedAt) : null,
    recordsRead: counters.recordsRead ?? 0,
    eventsPublished: (counters.eventsPublished ?? 0) + written.announced,
    // The state was created by the job's reset: its counters are all the stream's since.
    streamEventsPublished: (state.eventsPublished ?? 0) + written.events,
    recordsAtFirstSync: null,
  };
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/**
 * The outcome to keep on `job` for one stream's part, first seen ended at `now`: completed
 * (`endedBy` null, with its own `doneAt`), or ended early with its figures as `state` holds
 * them: `ending` when the caller knows what ends it (its connection removed, a takeover about
 * to replace the state), else `superseded` when its backfill state is not the job's (see
 * readStream in backfill.ts). Undefined while the part runs with nothing ending it, and once an
 * outcome is kept (the first one stays). Pure.
 * @example endedOutcome(job, 'hotel-1:customer', state, 'removed', now) // { endedBy: 'removed', recordsRead: 120, … }
 */
export function endedOutcome(
  job: BackfillJob,
  streamId: string,
  state: StreamState | undefined,
  ending: BackfillEnding | null,
  now: number,
): BackfillStreamOutcome | undefined {
  if (job.outcomes?.[streamId] !== undefined) return undefined;
  const part = partOf(job, state);
  const endedBy = ending ?? (part === undefined ? 'superseded' : null);
  if (endedBy === null && part?.doneAt == null) return undefined;
  return {
    doneAt: part?.doneAt ?? now,
    recordsRead: part?.recordsRead ?? 0,
    eventsPublished: part?.eventsPublished ?? 0,
    endedBy: part?.doneAt != null ? null : endedBy,
  };
}

/**
 * The outcomes `job` is to keep for those of `states` whose backfill part is the job's, as
 * `endedBy` ends them at `now` (a connection's removal, or a later backfill or reset taking the
 * streams over), just before their states are deleted or replaced: a running part ends with the
 * figures its state holds, a completed one keeps its own end (see {@link endedOutcome}). Streams
 * with an outcome kept already, or whose part belongs to another job, are left out. Pure.
 * @example endingOutcomes(job, [state], 'removed', now) // { 'hotel-1:customer': { endedBy: 'removed', recordsRead: 120, … } }
 */
export function endingOutcomes(
  job: BackfillJob,
  states: readonly (StreamState | undefined)[],
  endedBy: BackfillEnding,
  now: number,
): Record<string, BackfillStreamOutcome> {
  const outcomes: Record<string, BackfillStreamOutcome> = {};
  for (const state of states) {
    if (state?.backfill?.jobId !== job.id || !job.streamIds.includes(state.streamId)) continue;
    const outcome = endedOutcome(job, state.streamId, state, endedBy, now);
    if (outcome) outcomes[state.streamId] = outcome;
  }
  return outcomes;
}
