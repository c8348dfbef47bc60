/** Where each connection's streams stand, in a line: pure, no DOM. */

/** The states a stream is counted in, in the order the line names them. */
const STATES = ['ok', 'failing', 'parked', 'first sync', 'not polled'];

/**
 * Where one stream stands, as the streams table's State column says it without details.
 * @param {any} stream
 */
function stateOf(stream) {
  if (stream.configured === false) return 'not polled';
  if (stream.parked) return 'parked';
  if (stream.consecutiveFailures > 0) return 'failing';
  if (!stream.initialSyncDone) return 'first sync';
  return 'ok';
}

/**
 * A line per connection saying how many streams it has and how many stand where
 * (`3 streams: 2 ok, 1 parked`), by connection id; a connection without streams has none. Pure.
 * @param {any[]} streams as `GET /streams` lists them
 * @returns {Map<string, string>}
 * @example streamsSummaries([{ connectionId: 'local', configured: true, parked: true }]).get('local') // '1 stream: 1 parked'
 */
export function streamsSummaries(streams) {
  /** @type {Map<string, Map<string, number>>} */
  const counts = new Map();
  for (const stream of streams) {
    const ofConnection = counts.get(stream.connectionId) ?? new Map();
    const state = stateOf(stream);
    ofConnection.set(state, (ofConnection.get(state) ?? 0) + 1);
    counts.set(stream.connectionId, ofConnection);
  }
  return new Map(
    [...counts].map(([connectionId, ofConnection]) => {
      const total = [...ofConnection.values()].reduce((sum, n) => sum + n, 0);
      const states = STATES.filter((state) => ofConnection.has(state))
        .map((state) => `${ofConnection.get(state)} ${state}`)
        .join(', ');
      return [connectionId, `${total} ${total === 1 ? 'stream' : 'streams'}: ${states}`];
    }),
  );
}
