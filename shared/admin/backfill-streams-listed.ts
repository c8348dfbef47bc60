import type { z } from 'zod';
import type { BackfillJobView, BackfillStreamProgress } from './backfill-view.ts';
import type { BackfillStreamCountsSchema } from './schemas.ts';
import { escapedJsonBytes, firstThatFit } from './stream-page.ts';

/** Where a job's streams stand (see BackfillStreamCountsSchema). */
export type BackfillStreamCounts = z.infer<typeof BackfillStreamCountsSchema>;

type Standing = Exclude<keyof BackfillStreamCounts, 'total'>;

/** Which streams an answer lists first when it leaves some out: those a reader watches. */
const LISTING_ORDER: readonly Standing[] = ['reading', 'parked', 'ended', 'caughtUp'];

/** Where one stream of a job stands. Pure. */
export function backfillStreamStanding(
  stream: Pick<BackfillStreamProgress, 'done' | 'parked' | 'endedBy'>,
): Standing {
  if (stream.done) return stream.endedBy === null ? 'caughtUp' : 'ended';
  return stream.parked ? 'parked' : 'reading';
}

/**
 * How many of `streams` stand where. Pure.
 * @example countBackfillStreams([]) // { total: 0, reading: 0, parked: 0, ended: 0, caughtUp: 0 }
 */
export function countBackfillStreams(
  streams: readonly Pick<BackfillStreamProgress, 'done' | 'parked' | 'endedBy'>[],
): BackfillStreamCounts {
  const counts: BackfillStreamCounts = { total: 0, reading: 0, parked: 0, ended: 0, caughtUp: 0 };
  for (const stream of streams) {
    counts.total += 1;
    counts[backfillStreamStanding(stream)] += 1;
  }
  return counts;
}

/**
 * The job's view with `limit` of its streams at most (absent: every one) and, with `maxBytes`,
 * as many as keep the answer's JSON within it (at least one, as escapedJsonBytes counts it).
 * Those kept are chosen still reading first, then parked, ended, caught up (each group in the
 * job's order) and listed in the job's order; `streamsLeftOut` counts the others (those the
 * view had left out already too). Pure.
 * @example listedBackfillStreams(view, { limit: 0 }).streams // []
 */
export function listedBackfillStreams(
  view: BackfillJobView,
  bounds: { limit?: number; maxBytes?: number },
): BackfillJobView {
  const order = new Map(view.streams.map((stream, index) => [stream, index]));
  const byStanding = LISTING_ORDER.flatMap((standing) =>
    view.streams.filter((stream) => backfillStreamStanding(stream) === standing),
  );
  const { page } = firstThatFit(byStanding, {
    ...(bounds.limit === undefined ? {} : { limit: bounds.limit }),
    ...(bounds.maxBytes === undefined ? {} : { maxBytes: bounds.maxBytes }),
    // The answer around its streams, its count of those left out at its longest.
    reservedBytes: escapedJsonBytes({
      ...view,
      streams: [],
      streamsLeftOut: Number.MAX_SAFE_INTEGER,
    }),
  });
  const streams = page.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  const leftOut = (view.streamsLeftOut ?? 0) + view.streams.length - streams.length;
  return { ...view, streams, streamsLeftOut: leftOut };
}
