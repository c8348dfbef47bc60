import type { z } from 'zod';
import type { StreamViewSchema } from '../../admin/schemas.ts';
import { formatCount } from '../../local/terminal.ts';

/** One stream as `GET /streams` shows it. */
type StreamView = z.infer<typeof StreamViewSchema>;

/**
 * Whether a stream's first sync has begun and not completed. `lastPollAt` is saved only when a
 * poll run ends, and a first sync's first run can read for minutes, saving its window page by
 * page and its watermark window by window: a stream with none of those moving is not begun.
 * Pure.
 * @example inFirstSync({ ...view, lastPollAt: null, windowInProgress: { ...window, pages: 3 } }) === true
 */
export function inFirstSync(
  stream: Pick<
    StreamView,
    'initialSyncDone' | 'lastPollAt' | 'watermark' | 'windowInProgress' | 'recordsRead'
  >,
): boolean {
  if (stream.initialSyncDone) return false;
  return (
    stream.lastPollAt !== null ||
    stream.windowInProgress !== null ||
    stream.watermark !== null ||
    stream.recordsRead > 0
  );
}

/**
 * The STATE column of `streams list`: where a stream stands, in a few words. A first sync shows
 * its records read and the pages of its window in progress, from its first page on; a backfill
 * pass beside the live polls, its own records read.
 * Pure.
 * @example streamStateText({ ...view, recordsRead: 12_000 }) === 'first sync (12,000 records)'
 */
export function streamStateText(stream: StreamView): string {
  // A stream whose entity was dropped, or whose connection is disabled, is not polled at all.
  if (!stream.configured) return 'not polled';
  if (stream.parked) return 'parked';
  if (inFirstSync(stream)) {
    const progress = [
      ...(stream.recordsRead > 0 ? [`${formatCount(stream.recordsRead)} records`] : []),
      ...(stream.windowInProgress ? [`window ${stream.windowInProgress.pages} pages`] : []),
    ];
    return progress.length > 0 ? `first sync (${progress.join(', ')})` : 'first sync';
  }
  if (stream.lastPollAt === null) return 'never polled';
  if (stream.windowInProgress) return `window (${stream.windowInProgress.pages} pages)`;
  // A backfill's pass beside the live polls: its own records read.
  if (stream.backfillPass)
    return `backfill (${formatCount(stream.backfillPass.recordsRead)} records)`;
  return 'ok';
}
