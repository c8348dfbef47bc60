import { z } from 'zod';
import { systemClock } from '../../shared/clock.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { isMain } from '../figures.ts';
import { untilStdinEnds } from './child.ts';

/** The state table the backfill benchmark uses. */
export const BACKFILL_TABLE = 'change-bridge-backfill';

/** What the backends process announces on its first stdout line. */
export const BackendsSchema = z.object({
  connectorUrl: z.url(),
  clientToken: z.string(),
  accessToken: z.string(),
  chainId: z.string(),
  dynamoEndpoint: z.url(),
  dynamoAccessKeyId: z.string(),
});
export type Backends = z.infer<typeof BackendsSchema>;

const EnvSchema = z.object({
  BENCH_RATE_LIMIT: z.enum(['on', 'off']),
  /** Customers instead of the large size's 100,000. */
  BENCH_CUSTOMERS: z.coerce.number().int().positive().optional(),
});

/**
 * The simulator (size large) and dynalite (in memory) in a process of their own, so the
 * poller process's RSS is the bridge's alone. Stops when stdin ends.
 */
async function main(): Promise<void> {
  const env = EnvSchema.parse(process.env);
  const sim = await startSimulator({
    seed: 1,
    size: 'large',
    ...(env.BENCH_CUSTOMERS === undefined ? {} : { customers: env.BENCH_CUSTOMERS }),
    clock: systemClock,
    // on: the service's 200 requests per 30 s per AccessToken (the simulator's default).
    ...(env.BENCH_RATE_LIMIT === 'off' ? { rateLimit: false as const } : {}),
  });
  const dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, BACKFILL_TABLE);
  const announced: Backends = {
    connectorUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    accessToken: sim.tokens.accessToken,
    chainId: sim.controls.model.world.chainId,
    dynamoEndpoint: dynamo.endpoint,
    // The store's port answers only clients signed with this process's local credential.
    dynamoAccessKeyId: LOCAL_CREDENTIALS.accessKeyId,
  };
  process.stdout.write(`${JSON.stringify(announced)}\n`);
  await untilStdinEnds();
  await sim.close();
  await dynamo.close();
}

if (isMain(import.meta.url)) await main();
