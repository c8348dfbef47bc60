import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TABLE = 'budget-processes';
const discard: EventPublisher = {
  async publish(events) {
    return { published: events.length, thinned: 0, failures: [] };
  },
};

/** Arrivals the simulator logged, and how many it answered 429. */
function serverView(sim: RunningSimulator, windowMs: number) {
  const log = sim.controls.requestLog();
  return {
    requests: log.length,
    busiest: busiestWindow(
      log.map((entry) => Date.parse(entry.time)),
      windowMs,
    ),
    throttled: log.filter((entry) => entry.status === 429).length,
  };
}

describe('the budget across processes (the server counting arrivals)', () => {
  let dynamo: LocalDynamoDb;
  const sims: RunningSimulator[] = [];

  beforeAll(async () => {
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, TABLE);
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.close()));
    await dynamo.close();
  });

  // Time is scaled down (200 per 3 s instead of 30 s) so the test takes seconds; the counts are real.
  it('restarted at once after a burst of 200, a process waits for what the last window spent', async () => {
    const limit = { requests: 200, windowMs: 3_000 };
    const sim = await startSimulator({ seed: 2, size: 'small', rateLimit: limit });
    sims.push(sim);
    const connection = {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'restart test',
      rateLimit: limit,
    };
    const burst = async (requests: number) => {
      // A new ledger object per "process": nothing is shared but the table.
      const client = createConnectorClient(connection, {
        budgetLedger: new DynamoDbGrantLedger(dynamo.client, `${TABLE}`),
      });
      await Promise.all(Array.from({ length: requests }, () => client.taxEnvironments.getAll({})));
      await client.close();
    };
    await burst(200);
    await burst(100);
    const seen = serverView(sim, limit.windowMs);
    console.log(
      `restart: ${seen.requests} requests, busiest ${limit.windowMs} ms window ${seen.busiest}, 429s ${seen.throttled}`,
    );
    expect(seen.requests).toBe(300);
    expect(seen.busiest).toBeLessThanOrEqual(200);
    expect(seen.throttled).toBe(0);
  }, 60_000);

  it('keeps concurrent poller invocations of one token, each with its own client, within the budget through a backfill', async () => {
    const limit = { requests: 40, windowMs: 4_000 };
    const sim = await startSimulator({ seed: 3, size: 'medium', rateLimit: limit });
    sims.push(sim);
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE });
    const settings = pollSettingsFromEnv(
      {
        POLL_ENTITIES: 'customer,accountNote,loyaltyMembership,paymentRequest,reservationGroup',
        POLL_INTERVAL: '1s',
      },
      Date.now(),
    );
    const definitions = streamDefinitions('multi', settings);
    const invoke = async (definition: (typeof definitions)[number]) => {
      // One Lambda invocation: its own client and ledger object, the shared table, a deadline.
      const client = createConnectorClient(
        {
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken: sim.tokens.accessToken,
          client: 'invocation',
          rateLimit: limit,
        },
        { budgetLedger: new DynamoDbGrantLedger(dynamo.client, TABLE) },
      );
      try {
        return await pollStream(
          definition,
          {
            store,
            client,
            publisher: discard,
            clock: systemClock,
            windows: settings.windows,
            pageCount: 200,
            deadline: Date.now() + 3_000,
          },
          `invocation-${Math.random()}`,
        );
      } finally {
        await client.close();
      }
    };
    // 12 s or more, until every stream caught up or the budget was spent over more than two
    // windows (a loaded machine sends more slowly), 30 s at most.
    const spentTwice = () => serverView(sim, limit.windowMs).requests > limit.requests * 2;
    const [minEnd, endAt] = [Date.now() + 12_000, Date.now() + 30_000];
    let caughtUp = 0;
    const done = () => caughtUp === definitions.length || (Date.now() >= minEnd && spentTwice());
    while (Date.now() < endAt && !done()) {
      const outcomes = await Promise.all(definitions.map(invoke));
      caughtUp = outcomes.filter((o) => o.kind === 'polled' && o.caughtUp).length;
    }
    const seen = serverView(sim, limit.windowMs);
    console.log(
      `invocations: ${definitions.length} streams, ${caughtUp} caught up, ${seen.requests} requests, busiest ${limit.windowMs} ms window ${seen.busiest} of ${limit.requests}, 429s ${seen.throttled}`,
    );
    expect(seen.requests).toBeGreaterThan(limit.requests * 2);
    expect(seen.busiest).toBeLessThanOrEqual(limit.requests);
    expect(seen.throttled).toBe(0);
  }, 60_000);
});
