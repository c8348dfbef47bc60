import { mapWithConcurrency } from '../concurrency.ts';
import { ValidationError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { AdminDeps } from './admin-deps.ts';

/** Named connections whose streams are read at once (in AWS, a GetItem each). */
const CONNECTION_READS_IN_FLIGHT = 16;

/**
 * The configured streams of the named connections, each connection's read on its own (in AWS,
 * its item alone: one GetItem, not the listing of every stored connection), in the order named,
 * each once; every configured stream (the whole listing) when none are named. The same streams
 * as the whole list's of those connections.
 */
export async function configuredStreamsOf(
  deps: Pick<AdminDeps, 'streams'>,
  connectionIds: readonly string[] | undefined,
): Promise<StreamDefinition[]> {
  if (connectionIds === undefined) return [...(await deps.streams())];
  const named = [...new Set(connectionIds)];
  const read = await mapWithConcurrency(named, CONNECTION_READS_IN_FLIGHT, async (connectionId) =>
    // A `streams` that ignores the filter (the local one) answers every stream: matched here.
    (await deps.streams({ connectionId })).filter((d) => d.connectionId === connectionId),
  );
  const seen = new Set<string>();
  return read.flat().filter((d) => !seen.has(d.streamId) && seen.add(d.streamId));
}

/**
 * The configured streams of the chosen connections and entity types (each list: all when
 * absent); throws ValidationError naming `connections[i]` or `entities[i]` for one that has no
 * configured stream. Pure.
 */
export function chooseStreams(
  streams: readonly StreamDefinition[],
  entities: readonly string[] | undefined,
  connections?: readonly string[] | undefined,
): StreamDefinition[] {
  connections?.forEach((connectionId, index) => {
    if (!streams.some((s) => s.connectionId === connectionId)) {
      throw new ValidationError('backfill', [
        { path: `connections[${index}]`, message: `${connectionId} is no enabled connection` },
      ]);
    }
  });
  const ofConnections = connections
    ? streams.filter((s) => connections.includes(s.connectionId))
    : [...streams];
  if (entities === undefined) return ofConnections;
  entities.forEach((entityType, index) => {
    if (!ofConnections.some((s) => s.spec.entityType === entityType)) {
      throw new ValidationError('backfill', [
        {
          path: `entities[${index}]`,
          message: connections
            ? `${entityType} is not polled by ${connections.join(', ')} (its --entities, else POLL_ENTITIES)`
            : `${entityType} is not polled here (POLL_ENTITIES, or a connection's --entities)`,
        },
      ]);
    }
  });
  return ofConnections.filter((s) => entities.includes(s.spec.entityType));
}
