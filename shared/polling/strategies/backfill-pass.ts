import type { BackfillPass, StreamWindow } from '../../state/state-store.ts';
import {
  activePass,
  partStillCurrent,
  passAdvanced,
  passJudging,
  passWindowRead,
} from '../backfill-state.ts';
import { pollPace } from '../deadline-pace.ts';
import {
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  setAsideNoted,
} from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import { nextWindow, type WindowSettings } from '../windows.ts';
import { readWindow } from './window-pages.ts';
import { backlogAboveBound, backlogBoundary, pastDeadline } from './windowed.ts';

/**
 * The shortest slice of a run a pass takes: the stream's live window is read again between two
 * slices, so a live change of the stream waits at most about one slice behind its backfill.
 */
export const PASS_SLICE_MIN_MS = 1_000;

/**
 * Records per page of a pass that emits. Each record becomes an event (a fraction of a
 * millisecond to publish locally), and the stream's live poll waits for the page in hand, so a
 * page's work stays well under a one-second interval; half a full page doubles the pass's
 * requests, where a quarter cost the live polls of other streams their budget.
 */
export const PASS_EMIT_PAGE_COUNT = 500;

/** What a slice of a pass did. */
export interface PassSliceResult {
  /** No pass is left to run: none was started, or this slice completed it. */
  done: boolean;
  /** Stopped early because the undelivered backlog was above its bound. */
  paused?: boolean;
}

/**
 * The window settings of a pass's next window: without the overlap once its watermark had
 * settled (settle lag and overlap, the lateness a window allows a record) before the pass began,
 * as every window end but one near the start is: the window that ended there has seen every
 * record of its span, and read again, the overlap's records would be published twice under the
 * same ids (each counted in the pass's events published, delivered once). Pure.
 */
function passWindowSettings(pass: BackfillPass, windows: WindowSettings): WindowSettings {
  if (pass.watermark === null) return windows;
  const settledFor = pass.startedAt - Date.parse(pass.watermark);
  return settledFor >= windows.settleLagMs + windows.overlapMs
    ? { ...windows, overlapMs: 0 }
    : windows;
}

/**
 * The pass's next window: `done` once its watermark reached its end; `wait` while its last
 * window would end after now less the settle lag (the service may still be writing those
 * moments). Pure.
 */
export function nextPassWindow(
  pass: BackfillPass,
  nowMs: number,
  settings: Pick<PollDeps, 'windows' | 'pageCount'>,
): StreamWindow | 'done' | 'wait' {
  if (pass.window !== null) return pass.window;
  const endMs = Date.parse(pass.endUtc);
  if (pass.watermark !== null && Date.parse(pass.watermark) >= endMs) return 'done';
  // The pass's windows end at its own end: for it, time stands still at endUtc + settle lag.
  const next = nextWindow(
    pass.watermark,
    endMs + settings.windows.settleLagMs,
    passWindowSettings(pass, settings.windows),
  );
  if (next === null) return 'done';
  if (Date.parse(next.endUtc) >= endMs && nowMs - settings.windows.settleLagMs < endMs)
    return 'wait';
  const count = pass.emit ? Math.min(settings.pageCount, PASS_EMIT_PAGE_COUNT) : settings.pageCount;
  return { ...next, cursor: null, count, pages: 0 };
}

/**
 * Runs the stream's backfill pass (see BackfillPassSchema) for one slice: until the stream's
 * next live poll is due (one interval, at least {@link PASS_SLICE_MIN_MS}, after its live
 * windows began), once they caught up. A slice that begins later than that (its live read
 * waited for a connector budget that live polls ask more of than it holds: every live poll of
 * the token is late then) reads one page, waiting at most {@link PASS_SLICE_MIN_MS} for it:
 * without it the pass never moved while that lasted, the stream reading its live window over
 * and over and holding its catch-up slot.
 * Windows go from the history start to the pass's end like a first sync's, as bulk work on the
 * bulk lane, each page's cursor and counters saved in the pass so a cut-off run resumes; with
 * `emit` its records are republished, without they are judged against the kept snapshots (see
 * passJudging). The pass is done once its watermark reaches its end. Live polls wait at most
 * for the page in hand and the one read ahead of it: a page still waiting for the budget when
 * the slice ends gives up (it spent no request), one already asked for is taken (dropped, the
 * next slice would ask for it again), and the stream's live windows are read between two slices
 * (poll-stream's runStrategy). Like a window's read, it asks for no page that could not be in
 * hand before the invocation's deadline (see deadlinePace).
 */
export async function runBackfillPass(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
  /** When the live windows before this slice began: the next ones are due an interval later. */
  liveStartedAt: number = deps.clock.now(),
): Promise<PassSliceResult> {
  const result: PassSliceResult = { done: false };
  const nextLiveAt = liveStartedAt + Math.max(PASS_SLICE_MIN_MS, definition.intervalMs);
  const late = deps.clock.now() >= nextLiveAt;
  const sliceEndsAt = late ? deps.clock.now() + PASS_SLICE_MIN_MS : nextLiveAt;
  // A page waiting for the connector's budget at the slice's end gives up its turn: the live
  // poll due then must not wait behind it (bulk requests wait while live ones go first).
  const slice = new AbortController();
  const timer = new AbortController();
  deps.clock
    .sleep(Math.max(0, sliceEndsAt - deps.clock.now()), timer.signal)
    .then(() => slice.abort(new SliceOver()))
    .catch(() => undefined);
  try {
    const limits = { endsAt: sliceEndsAt, onePage: late, waitSignal: slice.signal };
    return await runSlice(definition, spec, deps, state, result, limits);
  } catch (error) {
    if (slice.signal.aborted && !deps.signal?.aborted) return result;
    throw error;
  } finally {
    timer.abort();
  }
}

/** Why a pass's wait was aborted: its slice is over. */
class SliceOver extends Error {
  constructor() {
    super('the backfill pass slice is over');
  }
}

/** Where a slice ends: at `endsAt`, or after its first page with `onePage`. */
interface SliceLimits {
  endsAt: number;
  onePage: boolean;
  /** Aborted at `endsAt`: a page still waiting for the budgets then gives up its turn. */
  waitSignal: AbortSignal;
}

async function runSlice(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
  result: PassSliceResult,
  { endsAt: sliceEndsAt, onePage, waitSignal }: SliceLimits,
): Promise<PassSliceResult> {
  let pageRead = false;
  const sliceOver = () =>
    pastDeadline(deps) || deps.clock.now() >= sliceEndsAt || (onePage && pageRead);
  const pace = pollPace(deps);
  for (;;) {
    const pass = activePass(state.current);
    if (!pass) return { ...result, done: true };
    const window = nextPassWindow(pass, deps.clock.now(), deps);
    if (window === 'wait') {
      // The slice's time is spent waiting (the next live poll comes when it ends), not in a loop
      // of live polls.
      const settled = Date.parse(pass.endUtc) + deps.windows.settleLagMs;
      const until = Math.min(sliceEndsAt, settled);
      await deps.clock
        .sleep(Math.max(0, until - deps.clock.now()), deps.signal)
        .catch(() => undefined);
      if (sliceOver()) return result;
      continue;
    }
    if (window === 'done') {
      const doneAt = deps.clock.now();
      await state.save({ backfill: passAdvanced(pass, { records: 0, events: 0 }, { doneAt }) });
      return { ...result, done: true };
    }
    if (sliceOver() || !pace.nextFits() || (await backlogAboveBound(deps, result))) return result;
    const backlog = backlogBoundary(deps, result);
    /** Whether the page after the one in hand was asked for as it arrived (read ahead). */
    let readingAhead = false;
    pace.asking();
    const read = await readWindow(definition, spec, deps, window, {
      emitCreated: pass.emit,
      priority: 'bulk',
      backfill: passJudging(pass),
      beforePublish: partStillCurrent(deps.store, state, pass.jobId),
      savePage: async (next, counts) => {
        const current = activePass(state.current) ?? pass;
        await state.save({
          backfill: passAdvanced(current, counts, { window: next }),
          ...setAsideNoted(state.current, counts),
        });
      },
      stopAfterPage: async () => {
        if (onePage || pastDeadline(deps) || backlog.reached()) return true;
        // One read ahead while the slice lasted (and fitting the deadline) is taken; none after.
        if (!readingAhead && (sliceOver() || !pace.nextFits())) return true;
        await backlog.check();
        return false;
      },
      // A slice of one page reads none ahead: it would wait for the budget, for nothing.
      ahead: (page) => {
        pace.arrived(page.sentAt);
        readingAhead = !onePage && !sliceOver() && !backlog.reached() && pace.nextFits();
        return readingAhead;
      },
      waitSignal,
    });
    pageRead = true;
    if (!read.finished) return result;
    const current = activePass(state.current) ?? pass;
    await state.save({
      backfill: passWindowRead(current, read.lastPage, window.endUtc, deps.clock.now()),
      ...setAsideNoted(state.current, read.lastPage),
    });
  }
}
