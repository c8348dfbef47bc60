import type { StreamState } from '../state/state-store.ts';
import type { PollDeps, StreamDefinition } from './poll-context.ts';
import { isLiveWindow, plansLiveWindow, type WindowSettings } from './windows.ts';

/**
 * Whether the undelivered backlog is above its bound now; false without a gauge, or when it
 * cannot tell (each poll asks again before its bulk pages).
 */
export async function backlogAboveBoundNow(deps: PollDeps): Promise<boolean> {
  return (await deps.backlog?.aboveBound().catch(() => false)) ?? false;
}

/**
 * Whether a stream does nothing but bulk windowed work now (a first sync, a window in progress
 * that is not a live one: see {@link isLiveWindow}, or, with none in progress, the window it
 * would plan now after its polls stopped or failed for a while: see {@link plansLiveWindow}),
 * which pauses while the undelivered backlog is above its bound: its poll would find the backlog
 * high at once, save, and be due again, so the loop leaves it until the backlog drains rather
 * than start it at every free slot (13,000 first syncs of 1,000 hotels added at once would
 * otherwise poll the store in a loop). A stream running a backfill pass reads its live window
 * first, and is started. Such a stream is catching up, not live, whatever its state. Pure.
 */
export function waitsForBacklog(
  definition: StreamDefinition,
  state: StreamState | undefined,
  windows: WindowSettings,
  nowMs: number,
): boolean {
  if (definition.spec.strategy !== 'windowed') return false;
  if (state === undefined || !state.initialSyncDone) return true;
  if (state.window !== null)
    return !isLiveWindow(state.window, windows.overlapMs, definition.intervalMs);
  return !plansLiveWindow(state.watermark, nowMs, windows, definition.intervalMs);
}
