import type { SetAsideRecord } from '../connector/response.ts';
import {
  type BackfillPass,
  StateConflictError,
  type StateStore,
  type StreamState,
  type StreamWindow,
} from '../state/state-store.ts';
import type { ChangeContext } from './page-changes.ts';
import { advanceCounters, type PageCounts, setAsideNoted, syncCompleted } from './poll-context.ts';

/** How a backfill judges what it reads (see ChangeContext.backfill); undefined: as live polls do. */
export type BackfillJudging = ChangeContext['backfill'];

/**
 * A stream past its first sync with no window or backfill pass in progress: its poll reads the
 * present. A stream never polled, in its first sync, paging through a window or running a
 * backfill pass is catching up. Pure.
 */
export function isLiveStream(state: StreamState | undefined): boolean {
  return state?.initialSyncDone === true && state.window === null && !activePass(state);
}

/**
 * A stream past its first sync with no window in progress and a backfill pass running: its next
 * poll reads the present first, as a live stream's does, then goes on with the pass. Pure.
 */
export function isLiveBesidePass(state: StreamState | undefined): boolean {
  return (
    state?.initialSyncDone === true && state.window === null && activePass(state) !== undefined
  );
}

/** The stream's backfill pass while it runs; undefined when there is none or it is done. Pure. */
export function activePass(state: StreamState): BackfillPass | undefined {
  const backfill = state.backfill;
  return backfill?.kind === 'pass' && backfill.doneAt === null ? backfill : undefined;
}

/**
 * How a windowed stream's pass publishes: with `emit`, every present record it reads as
 * `created` under the backfill's id (see republishedChanges); without, records are judged as
 * live polls judge them (a stale snapshot gives `updated`). Pure.
 */
export function passJudging(pass: BackfillPass): BackfillJudging {
  if (!pass.emit) return undefined;
  return { id: pass.jobId, startedAt: pass.startedAt, republish: 'records' };
}

/**
 * How a stream's first sync judges its records: a backfill's first sync (a stream reset by
 * `backfill` before it had completed one) gives its `created` events the backfill's id. Pure.
 */
export function firstSyncJudging(state: StreamState): BackfillJudging {
  const backfill = state.backfill;
  if (state.initialSyncDone || backfill?.kind !== 'first-sync') return undefined;
  // Nothing was stored before: its records are all `created`, none awaits a republish.
  return { id: backfill.jobId, startedAt: Number.NEGATIVE_INFINITY, republish: false };
}

/**
 * How a windowed stream's live window judges records: as a first sync does (above), or, after
 * a backfill that emits began, announcing the backfill's `created` of an entity it has not
 * published yet before the entity's live change, or when it was only touched past the pass's
 * end (see BackfillContext). That holds
 * while the pass runs, and for windows starting before it completed: a record can move out of
 * the pass's reach (a change) just before the pass reads it, and its change be found after.
 * An entity the pass did publish gets the same id again, which receivers deduplicate. Pure.
 */
export function liveJudging(
  state: StreamState,
  window: Pick<StreamWindow, 'startUtc'>,
): BackfillJudging {
  const pass = state.backfill;
  if (pass?.kind !== 'pass' || !pass.emit) return firstSyncJudging(state);
  if (pass.doneAt !== null && Date.parse(window.startUtc) >= pass.doneAt) return undefined;
  const position = pass.doneAt === null ? (pass.window?.startUtc ?? pass.watermark) : null;
  return {
    id: pass.jobId,
    startedAt: judgedFrom(pass),
    republish: false,
    unreadFrom: position === null ? Number.NEGATIVE_INFINITY : Date.parse(position),
    passEnd: Date.parse(pass.endUtc),
    // Absent (still reading, or a pass stored before it was kept): not read to its end.
    readToEndAt: pass.readToEndAt ?? null,
  };
}

/**
 * The pass with its window ending at `endUtc` read to the end at `now`: its watermark there,
 * no window in progress, `counts` added, and, for its last window (reaching the pass's end),
 * when it was read to its end (BackfillPass.readToEndAt). Pure.
 */
export function passWindowRead(
  pass: BackfillPass,
  counts: PageCounts,
  endUtc: string,
  now: number,
): BackfillPass {
  const last = Date.parse(endUtc) >= Date.parse(pass.endUtc);
  return passAdvanced(pass, counts, {
    watermark: endUtc,
    window: null,
    ...(last ? { readToEndAt: now } : {}),
  });
}

/**
 * Up to when a snapshot counts as stored before the pass's backfill (BackfillContext.startedAt):
 * its start, or later where a poll unaware of the pass stored snapshots after it began and
 * announced nothing (see noteWritesUnawareOfPass). Pure.
 */
function judgedFrom(pass: BackfillPass): number {
  return Math.max(pass.startedAt, pass.unawareWritesUntil ?? Number.NEGATIVE_INFINITY);
}

/**
 * Called when a poll's save lost (StateConflictError) to a change of its stream's state: when
 * that change is the start of an emitting pass the poll did not know of (`polled`, the state it
 * read, names no such pass), notes on the pass that the poll stored snapshots until `now`
 * (BackfillPass.unawareWritesUntil). That poll published its changes without the backfill's
 * `created` ahead of them (it could not know), and stored their snapshots after the backfill
 * began, which later polls would take for ones stored by a poll that announced it; and the pass
 * reads only up to where live polls had read when it began, so it never reaches them either.
 * Seen in the soak with an emitting backfill: two customers of 4,883 got no `created`. A save
 * that loses again (another poll, the job) is read and tried again, a few times.
 */
export async function noteWritesUnawareOfPass(
  store: Pick<StateStore, 'getStream' | 'saveStream'>,
  polled: StreamState,
  now: number,
): Promise<void> {
  for (let attempt = 1; attempt <= UNAWARE_NOTE_ATTEMPTS; attempt++) {
    const stored = await store.getStream(polled.streamId);
    const pass = stored === undefined ? undefined : activePass(stored);
    if (!stored || !pass?.emit || polled.backfill?.jobId === pass.jobId) return;
    if ((pass.unawareWritesUntil ?? Number.NEGATIVE_INFINITY) >= now) return;
    try {
      await store.saveStream(
        { ...stored, backfill: { ...pass, unawareWritesUntil: now } },
        stored.version,
      );
      return;
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error;
    }
  }
}

/** Attempts of {@link noteWritesUnawareOfPass} at a save other writers keep winning. */
const UNAWARE_NOTE_ATTEMPTS = 3;

/**
 * How a strategy that lists every record on each poll (snapshot, tracked ids, prices) judges
 * them: its next poll after a backfill began is the whole pass. Pure.
 */
export function listingJudging(state: StreamState): BackfillJudging {
  const pass = activePass(state);
  if (!pass) return firstSyncJudging(state);
  if (!pass.emit) return undefined;
  // Judged as every poll is, and what did not change is republished; a change gets the
  // entity's `created` as it was first (nothing was read before it).
  return {
    id: pass.jobId,
    startedAt: judgedFrom(pass),
    republish: 'unchanged',
    unreadFrom: Number.NEGATIVE_INFINITY,
  };
}

/** The pass with `counts` added to its counters and `patch` applied. Pure. */
export function passAdvanced(
  pass: BackfillPass,
  counts: PageCounts,
  patch: Partial<Pick<BackfillPass, 'window' | 'watermark' | 'doneAt' | 'readToEndAt'>> = {},
): BackfillPass {
  const counters = advanceCounters(pass, counts);
  return {
    ...pass,
    ...patch,
    recordsRead: counters.recordsRead ?? 0,
    eventsPublished: counters.eventsPublished ?? 0,
  };
}

/**
 * The state patch of a listing poll that was a whole pass (see {@link listingJudging}): the
 * pass done now with this poll's counts; nothing when no pass runs. The poll's events go to the
 * stream's own counters too (it is the stream's live poll), so they are noted as
 * `eventsAnnounced`, which the job's count of the events it waits to see fanned out leaves out
 * of the live part (each counts once). Pure.
 */
export function listingPassDone(
  state: StreamState,
  counts: PageCounts,
  now: number,
): Pick<StreamState, 'backfill'> | Record<string, never> {
  const pass = activePass(state);
  if (!pass) return {};
  return { backfill: passAnnounced(pass, counts, counts.events, { doneAt: now }) };
}

/**
 * The patch counting a live page's announced `created` events (see PageCounts.announced) as the
 * backfill pass's, for the save that commits that page (noted as announced too: the page's
 * counts also go to the stream's own); nothing without any. Pure.
 */
export function announcedToPass(
  state: StreamState,
  counts: PageCounts,
): Pick<StreamState, 'backfill'> | Record<string, never> {
  const pass = state.backfill;
  if (!counts.announced || pass?.kind !== 'pass') return {};
  return {
    backfill: passAnnounced(pass, { records: 0, events: counts.announced }, counts.announced),
  };
}

/**
 * The pass advanced by `counts` (see {@link passAdvanced}), `announced` of whose events a live
 * poll published and also counted as the stream's own (`eventsAnnounced`). Pure.
 */
function passAnnounced(
  pass: BackfillPass,
  counts: PageCounts,
  announced: number,
  patch: Partial<Pick<BackfillPass, 'window' | 'watermark' | 'doneAt' | 'readToEndAt'>> = {},
): BackfillPass {
  return {
    ...passAdvanced(pass, counts, patch),
    eventsAnnounced: (pass.eventsAnnounced ?? 0) + announced,
  };
}

/**
 * The patch of a listing poll (a snapshot listing, tracked ids) that read its whole set at
 * `now`: the watermark, the first sync and the backfill pass it completes, and the records it
 * set aside for breaking their schema. Staged: the poll's success save writes it. Pure.
 */
export function listingCommitted(
  state: StreamState,
  counts: PageCounts,
  setAside: readonly SetAsideRecord[],
  now: number,
): Partial<StreamState> {
  const last = setAside.at(-1);
  return {
    watermark: new Date(now).toISOString(),
    ...syncCompleted(state, counts, now),
    ...listingPassDone(state, counts, now),
    ...(last
      ? setAsideNoted(state, {
          ...counts,
          setAside: { records: setAside.length, error: last.error, at: now },
        })
      : {}),
  };
}

/**
 * The check a page read for a backfill's part of a stream (its pass, or the first sync of a
 * stream the backfill reset) passes before its events are published (see
 * PublishObservationsOptions.beforePublish): the stream's state is read again (one strongly
 * consistent read a page, bulk work only) and the page is given up with a StateConflictError
 * (the poll ends as `changed`) once the state no longer names `jobId`, a later backfill or
 * reset having taken the stream over while the page was in flight. Its events, judged after
 * the takeover, would reach the receivers under the earlier job's ids and count in the later
 * job's webhook figures, which go by detection instant, never in its events published.
 */
export function partStillCurrent(
  store: Pick<StateStore, 'getStream'>,
  state: { readonly current: StreamState },
  jobId: string,
): () => Promise<void> {
  return async () => {
    const stored = await store.getStream(state.current.streamId);
    if (stored?.backfill?.jobId !== jobId)
      throw new StateConflictError(state.current.streamId, state.current.version);
  };
}

/**
 * The {@link partStillCurrent} check of a listing poll (a snapshot listing, tracked ids,
 * prices) that is a backfill's part: the whole pass while one runs, or the first sync of a
 * stream a backfill or reset started; undefined for any other poll (a live one reads no state
 * again). Pure.
 */
export function listingPartCheck(
  store: Pick<StateStore, 'getStream'>,
  state: { readonly current: StreamState },
): (() => Promise<void>) | undefined {
  const current = state.current;
  const part = activePass(current) ?? (current.initialSyncDone ? undefined : current.backfill);
  return part ? partStillCurrent(store, state, part.jobId) : undefined;
}
