import type { BackfillPass, StreamWindow } from '../../state/state-store.ts';
import { activePass, passAdvanced, passJudging } from '../backfill-state.ts';
import type { PollDeps, StateHandle, StreamDefinition } from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import { nextWindow } from '../windows.ts';
import { readWindow } from './window-pages.ts';
import { backlogAboveBound, pastDeadline } from './windowed.ts';

/**
 * The shortest slice of a run a pass takes: the stream's live window is read again between two
 * slices, so a live change of the stream waits at most about one slice behind its backfill.
 */
export const PASS_SLICE_MIN_MS = 1_000;

/** What a slice of a pass did. */
export interface PassSliceResult {
  /** No pass is left to run: none was started, or this slice completed it. */
  done: boolean;
  /** Stopped early because the undelivered backlog was above its bound. */
  paused?: boolean;
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
  const next = nextWindow(pass.watermark, endMs + settings.windows.settleLagMs, settings.windows);
  if (next === null) return 'done';
  if (Date.parse(next.endUtc) >= endMs && nowMs - settings.windows.settleLagMs < endMs)
    return 'wait';
  return { ...next, cursor: null, count: settings.pageCount, pages: 0 };
}

/**
 * Runs the stream's backfill pass (see BackfillPassSchema) for one slice of the run: about one
 * poll interval, at least {@link PASS_SLICE_MIN_MS}, after the stream's live windows caught up.
 * Windows go from the history start to the pass's end like a first sync's, as bulk work on the
 * bulk lane, each page's cursor and counters saved in the pass so a cut-off run resumes; every
 * record is judged against the kept snapshots. The pass is done once its watermark reaches its
 * end. Live polls are never held: between two slices the stream's next run reads its live
 * window first.
 */
export async function runBackfillPass(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<PassSliceResult> {
  const result: PassSliceResult = { done: false };
  const sliceEndsAt = deps.clock.now() + Math.max(PASS_SLICE_MIN_MS, definition.intervalMs);
  const sliceOver = () => pastDeadline(deps) || deps.clock.now() >= sliceEndsAt;
  for (;;) {
    const pass = activePass(state.current);
    if (!pass) return { ...result, done: true };
    const window = nextPassWindow(pass, deps.clock.now(), deps);
    if (window === 'wait') return result;
    if (window === 'done') {
      const doneAt = deps.clock.now();
      await state.save({ backfill: passAdvanced(pass, { records: 0, events: 0 }, { doneAt }) });
      return { ...result, done: true };
    }
    if (sliceOver() || (await backlogAboveBound(deps, result))) return result;
    const read = await readWindow(definition, spec, deps, window, {
      emitCreated: pass.emit,
      priority: 'bulk',
      backfill: passJudging(pass),
      savePage: async (next, counts) => {
        const current = activePass(state.current) ?? pass;
        await state.save({ backfill: passAdvanced(current, counts, { window: next }) });
      },
      stopAfterPage: async () => sliceOver() || (await backlogAboveBound(deps, result)),
      ahead: () => !sliceOver(),
    });
    if (!read.finished) return result;
    const current = activePass(state.current) ?? pass;
    await state.save({
      backfill: passAdvanced(current, read.lastPage, { watermark: window.endUtc, window: null }),
    });
  }
}
