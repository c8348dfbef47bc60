import { z } from 'zod';
import { isRemovedStream, type StreamState } from '../state/state-store.ts';
import { ConnectionViewSchema, splitStreamId } from './connection.ts';

/**
 * How many of a connection's streams are parked (an authorization error: every poll of its
 * token refused, 401), of how many, and the first parked one with its reason.
 */
export const ParkedStreamsSchema = z.object({
  count: z.number().int().nonnegative(),
  /** The connection's streams with a state (a stream not polled yet has none). */
  total: z.number().int().nonnegative(),
  /** The first parked stream by id and why it is parked; absent when none is. */
  first: z.object({ streamId: z.string(), reason: z.string().nullable() }).optional(),
});
/** The parked streams of one connection. */
export type ParkedStreams = z.infer<typeof ParkedStreamsSchema>;

/**
 * One connection as `GET /connections/{id}` answers it: its view, and its parked streams, so a
 * connection whose token is refused does not look merely `enabled` (a bridge before this field
 * answers none).
 */
export const ConnectionDetailSchema = ConnectionViewSchema.extend({
  parkedStreams: ParkedStreamsSchema.optional().meta({
    description:
      "The connection's parked streams (their polls are refused for authorization, such as a 401 for a bad AccessToken): count, of total, and the first one with its reason. They are polled again once the token changes, or after streams reset",
  }),
});
/** One connection as `GET /connections/{id}` answers it. */
export type ConnectionDetail = z.infer<typeof ConnectionDetailSchema>;

/**
 * The parked streams among one connection's stream states, by stream id; removed streams (in
 * background deletion) are no streams. Pure.
 * @example parkedStreamsOf([parkedCustomer, resource]) // { count: 1, total: 2, first: { streamId: 'hotel-1:customer', reason: '401 …' } }
 */
export function parkedStreamsOf(states: readonly StreamState[]): ParkedStreams {
  const streams = states
    .filter((state) => !isRemovedStream(state))
    .sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
  const parked = streams.filter((state) => state.parked);
  const first = parked[0];
  return {
    count: parked.length,
    total: streams.length,
    ...(first ? { first: { streamId: first.streamId, reason: first.parkedReason } } : {}),
  };
}

/**
 * The parked streams of each of `connectionIds` among stream states of any connections (a
 * listing of every stream): states of other connections are left out. Pure.
 * @example parkedStreamsByConnection(['hotel-1'], everyState).get('hotel-1') // { count: 0, total: 13 }
 */
export function parkedStreamsByConnection(
  connectionIds: readonly string[],
  states: readonly StreamState[],
): Map<string, ParkedStreams> {
  const statesOf = new Map<string, StreamState[]>(connectionIds.map((id) => [id, []]));
  for (const state of states) statesOf.get(splitStreamId(state.streamId).connectionId)?.push(state);
  return new Map([...statesOf].map(([id, own]) => [id, parkedStreamsOf(own)]));
}
