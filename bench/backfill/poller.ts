import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { systemClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { isMain, sampleRss } from '../figures.ts';
import { CountingPublisher } from '../poll-setup.ts';
import { BACKFILL_TABLE, BackendsSchema } from './backends.ts';

/** What the poller process reports on its stdout line. */
export const BackfillReportSchema = z.object({
  entities: z.number(),
  elapsedMs: z.number(),
  streams: z.number(),
  baselineRssBytes: z.number(),
  peakRssBytes: z.number(),
  /** Wall time inside the state store's snapshot reads and writes. */
  storeMs: z.number(),
});
export type BackfillReport = z.infer<typeof BackfillReportSchema>;

/**
 * The DynamoDB state store, timing its snapshot reads and writes: batched (getSnapshots,
 * putSnapshots) and conditional (replaceSnapshots, one PutItem a snapshot: what AWS pages of
 * customers and payment requests use, which the write-through proxy also writes).
 */
class TimedStateStore extends DynamoDbStateStore {
  storeMs = 0;
  override getSnapshots(...args: Parameters<DynamoDbStateStore['getSnapshots']>) {
    return this.timed(() => super.getSnapshots(...args));
  }
  override replaceSnapshots(...args: Parameters<DynamoDbStateStore['replaceSnapshots']>) {
    return this.timed(() => super.replaceSnapshots(...args));
  }
  override putSnapshots(...args: Parameters<DynamoDbStateStore['putSnapshots']>) {
    return this.timed(() => super.putSnapshots(...args));
  }

  /** Runs one store call, adding its wall time to {@link storeMs}. */
  private async timed<T>(call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await call();
    } finally {
      this.storeMs += performance.now() - started;
    }
  }
}

const EnvSchema = z.object({
  BENCH_BACKENDS: z.string().transform((text) => BackendsSchema.parse(JSON.parse(text))),
  BENCH_RATE_LIMIT: z.enum(['on', 'off']),
  /** Wall-clock budget: no new page starts after it (PollDeps.deadline). */
  BENCH_DEADLINE_MS: z.coerce.number().int().positive(),
  /** Backfill the customer stream again under a new stream id until the deadline. */
  BENCH_REPEAT: z.enum(['yes', 'no']),
});

/**
 * Backfills the customer stream (a first sync from 400 days back, `baseline`: snapshots
 * stored silently) with the real poller, connector client and DynamoDB state store, and
 * reports entities stored, wall time and RSS of this process.
 */
async function main(): Promise<void> {
  const env = EnvSchema.parse(process.env);
  const backends = env.BENCH_BACKENDS;
  const clock = systemClock;
  const dynamo = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: backends.dynamoEndpoint,
    credentials: { accessKeyId: backends.dynamoAccessKeyId, secretAccessKey: 'local' },
  });
  const store = new TimedStateStore({ client: dynamo, tableName: BACKFILL_TABLE, clock });
  // on: the client's own limiter keeps to 200 per 30 s (the default), as in production.
  const client = createConnectorClient(
    {
      baseUrl: backends.connectorUrl,
      clientToken: backends.clientToken,
      accessToken: backends.accessToken,
      client: 'change-bridge bench',
      ...(env.BENCH_RATE_LIMIT === 'off' ? { rateLimit: false as const } : {}),
    },
    { clock },
  );
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d' },
    clock.now(),
  );
  let entities = 0;
  const deps = (deadline: number, signal: AbortSignal): PollDeps => ({
    store,
    client,
    publisher: new CountingPublisher(),
    clock,
    windows: settings.windows,
    pageCount: settings.pageCount,
    deadline,
    signal,
    observer: {
      onChanges: (_streamId, changes) => {
        entities += changes.writes.length;
      },
    },
  });
  const baselineRssBytes = process.memoryUsage().rss;
  const rss = sampleRss();
  const started = clock.now();
  const deadline = started + env.BENCH_DEADLINE_MS;
  // Aborts a page waiting for the rate limiter at the deadline, so the measured span is exact.
  const signal = AbortSignal.timeout(env.BENCH_DEADLINE_MS);
  let streams = 0;
  do {
    const [definition] = streamDefinitions(`bf${streams}`, settings, {
      scope: { chainId: backends.chainId },
    });
    streams += 1;
    await pollStream(definition!, deps(deadline, signal), 'bench');
  } while (env.BENCH_REPEAT === 'yes' && clock.now() < deadline);
  const elapsedMs = clock.now() - started;
  const report: BackfillReport = {
    entities,
    elapsedMs,
    streams,
    baselineRssBytes,
    peakRssBytes: rss.stop(),
    storeMs: store.storeMs,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  await client.close();
  dynamo.destroy();
}

if (isMain(import.meta.url)) await main();
