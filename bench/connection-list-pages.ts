import { parseArgs } from 'node:util';
import { type ConnectionList, listConnectionPage } from '../shared/admin/connection-list-page.ts';
import { EntityTypeSchema } from '../shared/changes/entity-types.ts';
import { ManualClock } from '../shared/clock.ts';
import type { StoredConnection } from '../shared/connections/connection.ts';
import { DynamoDbConnectionStore } from '../shared/connections/dynamodb-connection-store.ts';
import { startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';
import type { StreamState } from '../shared/state/state-store.ts';

/*
 * GET /connections page after page on dynalite in process (the store of `change-bridge start`):
 * `--connections` stored connections with 13 stream states each, one in ten with its streams
 * parked. Lists them as `start` answers (one page of every connection) and as the AWS function
 * pages them (`--limit`, 4,000 there), over `--shards` stream state partitions (1 in `start`,
 * 32 in AWS), and prints the median time of `--runs` listings and the stream state reads.
 * @example npx tsx bench/connection-list-pages.ts --connections 1000 --runs 5
 */
const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    limit: { type: 'string', default: '4000' },
    shards: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
  },
});
const CONNECTIONS = Number(flags.connections);
const RUNS = Number(flags.runs);
/** Every entity type: a connection of the default settings has a stream of each. */
const ENTITIES = EntityTypeSchema.options;
const START_MS = Date.UTC(2026, 0, 1);

const dynamo = await startLocalDynamoDb({ listen: false });
const tableName = 'connection-list-bench';
await createStateTable(dynamo.client, tableName);
const store = new DynamoDbConnectionStore({ client: dynamo.client, tableName });
const state = new DynamoDbStateStore({
  client: dynamo.client,
  tableName,
  streamStateShards: Number(flags.shards),
});
const ids = Array.from({ length: CONNECTIONS }, (_, n) => `hotel-${n + 1}`);
for (const id of ids) {
  const connection: StoredConnection = {
    id,
    enabled: true,
    createdAt: new Date(START_MS).toISOString(),
    accessToken: { v: 1, wrappedKey: 'a2V5', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Y3Q=' },
  };
  await store.create(connection);
}
const states: StreamState[] = ids.flatMap((id, n) =>
  ENTITIES.map((entityType) => ({
    streamId: `${id}:${entityType}`,
    connectionId: id,
    entityType,
    watermark: new Date(START_MS).toISOString(),
    window: null,
    lastPollAt: START_MS,
    lastSuccessAt: START_MS,
    nextDueAt: START_MS + 60_000,
    consecutiveFailures: 0,
    lastError: null,
    parked: n % 10 === 0,
    parkedReason:
      n % 10 === 0 ? 'authorization failed: 401 Unauthorized: Invalid AccessToken' : null,
    lastSweepAt: null,
    initialSyncDone: true,
    version: 0,
  })),
);
for (let i = 0; i < states.length; i += 100)
  await Promise.all(states.slice(i, i + 100).map((s) => state.saveStream(s, 0)));

let reads = 0;
const countedState = new Proxy(state, {
  get(target, key) {
    const value: unknown = Reflect.get(target, key, target);
    if (key === 'listStreams') reads += 1;
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
const deps = {
  store,
  cipher: {
    seal: () => Promise.reject(new Error('not used')),
    open: () => Promise.reject(new Error('not used')),
  },
  state: countedState,
  clock: new ManualClock(START_MS),
  configured: [],
};

/** Every page of the listing with the bound given; its connections and time. */
async function listAll(limit: number | undefined): Promise<{ ms: number; listed: number }> {
  const started = performance.now();
  let listed = 0;
  let cursor: string | undefined;
  do {
    const page: ConnectionList = await listConnectionPage(
      { parkedStreams: true, ...(cursor === undefined ? {} : { cursor }) },
      limit === undefined ? {} : { connectionListLimit: limit },
      deps,
    );
    listed += page.connections.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { ms: performance.now() - started, listed };
}

for (const [name, limit] of [
  ['start (one page of every connection)', undefined],
  [`pages of ${flags.limit} (AWS)`, Number(flags.limit)],
] as const) {
  const times: number[] = [];
  let listed = 0;
  reads = 0;
  for (let run = 0; run < RUNS; run++) {
    const result = await listAll(limit);
    times.push(result.ms);
    listed = result.listed;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name}: ${listed} connections, ${flags.shards} shard(s): median ${times[Math.floor(RUNS / 2)]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}), ${reads / RUNS} stream state listings a run`,
  );
}
await dynamo.close();
