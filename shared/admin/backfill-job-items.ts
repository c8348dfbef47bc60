import { z } from 'zod';
import { BridgeError, parseOrThrow } from '../errors.ts';
import {
  BACKFILL_PK_PREFIX,
  ENTRY_SK_PREFIX,
  STREAMS_PER_ITEM,
  STREAMS_SK_PREFIX,
  WRITTEN_SK_PREFIX,
} from './backfill-job-keys.ts';
import {
  type BackfillJob,
  type BackfillJobEntries,
  BackfillJobEntriesSchema,
  BackfillJobSchema,
  type BackfillWritten,
  BackfillWrittenSchema,
  withEntries,
} from './backfill-jobs.ts';

/** The job item: `doc` holds the whole job in the first layout, the job but its streams and entries since. */
export const JobItemSchema = z.object({
  doc: z.looseObject({}),
  parts: z.number().int().nonnegative().optional(),
  outcomes: BackfillJobSchema.shape.outcomes,
  deliveredUntil: BackfillJobSchema.shape.deliveredUntil,
  ttl: z.number().optional(),
});

/** A stream item: a slice of the job's stream ids, in order, and their counters at the start. */
export const StreamsItemSchema = z.object({
  streamIds: BackfillJobSchema.shape.streamIds,
  deliveredAtStart: BackfillJobSchema.shape.deliveredAtStart,
});

/** The two maps of a job that writers add entries to. */
export type EntryMap = keyof BackfillJobEntries;

/** The job of the current layout: `doc`, its stream items in order, read back whole. */
export function assembleJob(
  doc: Record<string, unknown>,
  items: readonly Record<string, unknown>[],
  parts: number,
  what: string,
): BackfillJob {
  const slices = items
    .filter((item) => String(item.sk).startsWith(STREAMS_SK_PREFIX))
    .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
    .map((item) => parseOrThrow(StreamsItemSchema, item, what));
  if (slices.length !== parts) {
    throw new BridgeError(`${what} has ${slices.length} of its ${parts} stream items`, {
      retryable: true,
    });
  }
  const counted = slices.some((slice) => slice.deliveredAtStart !== undefined);
  return parseOrThrow(
    BackfillJobSchema,
    {
      ...doc,
      streamIds: slices.flatMap((slice) => slice.streamIds),
      ...(counted
        ? {
            deliveredAtStart: Object.assign(
              {},
              ...slices.map((slice) => slice.deliveredAtStart ?? {}),
            ),
          }
        : {}),
    },
    what,
  );
}

/** The written items of a job's collection, by stream id. */
export function writtenOf(
  items: readonly Record<string, unknown>[],
  what: string,
): Record<string, BackfillWritten> {
  const written: Record<string, BackfillWritten> = {};
  for (const item of items) {
    const sk = String(item.sk);
    if (sk.startsWith(WRITTEN_SK_PREFIX))
      written[sk.slice(WRITTEN_SK_PREFIX.length)] = parseOrThrow(BackfillWrittenSchema, item, what);
  }
  return written;
}

/** The entries kept as items of their own in a job's collection. */
export function entriesOf(
  items: readonly Record<string, unknown>[],
  what: string,
): BackfillJobEntries {
  const outcomes: Record<string, unknown> = {};
  const deliveredUntil: Record<string, unknown> = {};
  for (const item of items) {
    const sk = String(item.sk);
    if (sk.startsWith(ENTRY_SK_PREFIX.outcomes))
      outcomes[sk.slice(ENTRY_SK_PREFIX.outcomes.length)] = item.value;
    else if (sk.startsWith(ENTRY_SK_PREFIX.deliveredUntil))
      deliveredUntil[sk.slice(ENTRY_SK_PREFIX.deliveredUntil.length)] = item.value;
  }
  return parseOrThrow(BackfillJobEntriesSchema, { outcomes, deliveredUntil }, what);
}

/**
 * The stream items of a job (their sort keys but not their key or `ttl`): its stream ids in
 * slices of {@link STREAMS_PER_ITEM}, in order, each with the slice's `deliveredAtStart`. Pure.
 */
export function streamItemsOf(
  streamIds: BackfillJob['streamIds'],
  deliveredAtStart: BackfillJob['deliveredAtStart'],
): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  for (let start = 0; start < streamIds.length; start += STREAMS_PER_ITEM) {
    const slice = streamIds.slice(start, start + STREAMS_PER_ITEM);
    parts.push({
      sk: `${STREAMS_SK_PREFIX}${String(parts.length).padStart(6, '0')}`,
      streamIds: slice,
      deliveredAtStart: deliveredAtStart
        ? Object.fromEntries(
            slice.flatMap((id) =>
              deliveredAtStart[id] === undefined ? [] : [[id, deliveredAtStart[id]]],
            ),
          )
        : undefined,
    });
  }
  return parts;
}

/**
 * The job read back from its collection's items (`jobItem` among them, not expired), in either
 * layout, with the entries and written counts kept as items of their own.
 * @throws the parse error naming the item at fault
 */
export function jobOfCollection(
  id: string,
  jobItem: Record<string, unknown>,
  items: readonly Record<string, unknown>[],
): BackfillJob {
  const what = `backfill job ${BACKFILL_PK_PREFIX}${id}`;
  const { doc, parts, outcomes, deliveredUntil } = parseOrThrow(JobItemSchema, jobItem, what);
  const job =
    parts === undefined
      ? // The first layout: the whole job in `doc`, entries there or in the maps beside it.
        withEntries(parseOrThrow(BackfillJobSchema, doc, what), { outcomes, deliveredUntil })
      : assembleJob(doc, items, parts, what);
  const written = writtenOf(items, what);
  return {
    ...withEntries(job, entriesOf(items, what)),
    ...(Object.keys(written).length > 0 ? { written } : {}),
  };
}
