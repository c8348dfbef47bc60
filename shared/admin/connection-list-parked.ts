import { mapWithConcurrency } from '../concurrency.ts';
import {
  type ParkedStreams,
  parkedStreamsByConnection,
  parkedStreamsOf,
} from '../connections/connection-detail.ts';
import type { StateStore } from '../state/state-store.ts';

/**
 * Stream state listings in flight at once for a page of connections: one Query each of a
 * connection's shard (and one of the partition of states stored before sharding), so 4,000
 * connections, an AWS page, take 250 rounds of about 10 ms, well inside API Gateway's 29 s.
 */
const PARKED_READS_IN_FLIGHT = 16;

/**
 * How the parked streams of a page of connections are read: `each` connection's stream states
 * (a page bounded by a limit: it reads its own connections' states and none of another page's),
 * or `all` stream states in one listing (a page of every connection, as the local `start`
 * answers: one listing instead of one a connection).
 */
export type ParkedStreamsRead = 'each' | 'all';

/**
 * The parked streams of each connection of `connectionIds`, as `GET /connections/{id}` gives
 * them (see parkedStreamsOf), read as `read` says.
 */
export async function readParkedStreams(
  connectionIds: readonly string[],
  state: StateStore,
  read: ParkedStreamsRead,
): Promise<Map<string, ParkedStreams>> {
  if (connectionIds.length === 0) return new Map();
  if (read === 'all') return parkedStreamsByConnection(connectionIds, await state.listStreams());
  const parked = await mapWithConcurrency(connectionIds, PARKED_READS_IN_FLIGHT, async (id) =>
    parkedStreamsOf(await state.listStreams({ connectionId: id })),
  );
  return new Map(connectionIds.map((id, index) => [id, parked[index]!]));
}
