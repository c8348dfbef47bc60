/**
 * The streams of the stored connections that come after a stream id, in stream id order, read
 * from the store's connection order. The two differ: a stream id is `<connectionId>:<type>`,
 * and `-` and the digits sort before `:`, so `a-b:customer` and `a0:customer` come before
 * `a:customer` while the store lists `a` before `a-b` and `a0`. Between two connection ids the
 * orders disagree only where one is the other followed by `-` or a digit (see
 * {@link prefixesSortingAfter}); everything here rests on that.
 */
import { mapWithConcurrency } from '../concurrency.ts';
import { ValidationError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import { type PollSettings, streamDefinitions } from '../polling/poll-settings.ts';
import type { TrackedTargets } from '../polling/tracked-targets.ts';
import { ConnectionIdSchema, type StoredConnection, splitStreamId } from './connection.ts';
import { type ConnectionStore, readConnectionsAfter } from './connection-store.ts';
import { streamsOfConnection } from './connection-streams.ts';

/** Which streams a page of a listing needs: those after `after` (a stream id), `want` of them. */
export interface StreamPageHint {
  /** The last stream id of the page before; from the first stream without it. */
  after?: string;
  /** How many streams after it the page needs at least (all of them if fewer follow). */
  want: number;
}

/** The most stored connections read at once (readConnectionsAfter's Query size). */
const READ_BATCH_MAX = 1000;
/** The longest connection id (ConnectionIdSchema). */
const CONNECTION_ID_MAX_CHARS = 64;
/** Prefix lookups in flight at once. */
const PREFIX_READS_IN_FLIGHT = 8;

/**
 * The connection ids whose streams sort after those of `id` although they sort before `id`:
 * its proper prefixes that `id` continues with `-` or a digit (characters before `:`). They
 * are valid connection ids only. Pure.
 * @example prefixesSortingAfter('hotel-12') // ['hotel', 'hotel-', 'hotel-1']
 */
export function prefixesSortingAfter(id: string): string[] {
  const prefixes: string[] = [];
  for (let length = 1; length < id.length; length++) {
    const prefix = id.slice(0, length);
    if (id[length]! < ':' && ConnectionIdSchema.safeParse(prefix).success) prefixes.push(prefix);
  }
  return prefixes;
}

/** The stored connections of `ids` that exist and can be read (an unreadable item is left out). */
async function readableConnections(
  store: ConnectionStore,
  ids: readonly string[],
): Promise<StoredConnection[]> {
  const found = await mapWithConcurrency(ids, PREFIX_READS_IN_FLIGHT, (id) =>
    store.get(id).catch((error: unknown) => {
      // As the listing leaves it out.
      if (error instanceof ValidationError) return undefined;
      throw error;
    }),
  );
  return found.filter((connection) => connection !== undefined);
}

/**
 * The streams of the enabled stored connections whose ids sort after `hint.after`, by id: at
 * least the first `hint.want` of them (every one if fewer follow) and none missing between
 * them, so a page's first streams are among them. The store is read from `hint.after`'s
 * connection on, about as many connections as hold `want` streams, and one lookup per prefix
 * of that connection whose streams sort after it, not every connection: a page costs the same
 * with 100 connections or 10,000.
 * @example await enabledConnectionStreamsAfter(store, settings, {}, { after: 'hotel-7:resource', want: 4001 })
 */
export async function enabledConnectionStreamsAfter(
  store: ConnectionStore,
  base: PollSettings,
  tracked: TrackedTargets,
  hint: StreamPageHint,
): Promise<StreamDefinition[]> {
  const { after, want } = hint;
  const cursorConnection = after === undefined ? undefined : splitStreamId(after).connectionId;
  // The cursor's connection (its streams after the cursor's) and its prefixes that sort after it.
  const before =
    cursorConnection === undefined
      ? []
      : await readableConnections(store, [
          ...(ConnectionIdSchema.safeParse(cursorConnection).success ? [cursorConnection] : []),
          ...prefixesSortingAfter(cursorConnection),
        ]);
  // The other connections whose streams sort after the cursor's: every id after `<id>:` (its
  // first 65 characters order every id of 64 at most as the whole does: a made-up cursor's id
  // may be longer than a sort key holds).
  let from =
    cursorConnection === undefined
      ? undefined
      : `${cursorConnection}:`.slice(0, CONNECTION_ID_MAX_CHARS + 1);
  // Streams a connection holds: the deployment's count at first, then as read (connections
  // with fewer entity types, or disabled, need more of them for a page).
  let perConnection = Math.max(1, streamDefinitions('x', base, tracked).length);
  const read: StoredConnection[] = [];
  let known = 0;
  for (;;) {
    const batch = Math.min(READ_BATCH_MAX, Math.ceil((want - known) / perConnection) + 1);
    const page = await readConnectionsAfter(store, from, batch);
    read.push(...page);
    const streams = streamsAfter([...before, ...read], base, tracked, after);
    // None follow: every stream after the cursor is known.
    if (page.length < batch) return streams;
    // The connections not read yet sort after the last one read; those that continue an id read
    // with `-` or a digit sort before its streams, but after every stream before `<last>:`.
    const last = page.at(-1)!.id;
    const complete = streams.filter((definition) => definition.streamId < `${last}:`);
    if (complete.length >= want) return complete;
    known = complete.length;
    perConnection = Math.max(1, streams.length / (before.length + read.length));
    from = last;
  }
}

/** The streams of the enabled `connections` whose ids sort after `after`. Pure. */
function streamsAfter(
  connections: readonly StoredConnection[],
  base: PollSettings,
  tracked: TrackedTargets,
  after: string | undefined,
): StreamDefinition[] {
  return connections
    .filter((connection) => connection.enabled)
    .flatMap((connection) => streamsOfConnection(connection, base, tracked))
    .filter((definition) => after === undefined || definition.streamId > after);
}
