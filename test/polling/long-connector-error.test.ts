import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport } from '../../shared/connector/http-transport.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream, STORED_ERROR_MAX_CHARS } from '../../shared/polling/poll-stream.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from './poll-harness.ts';

/** A connector that answers every request with `status` and an error Message of `length` characters. */
function answering(status: number, length: number): HttpTransport {
  return {
    postJson: async () => ({
      status,
      headers: {},
      text: JSON.stringify({ Message: `refused: ${'x'.repeat(length)}`, RequestId: 'req-1' }),
    }),
    close: async () => undefined,
  };
}

/**
 * DynamoDB caps an item at 400 KB: a stream state holding the whole text of a connector error
 * (a proxy's page, a verbose validation message) could not be stored, so the poll job failed
 * on the store instead of recording the stream's failure, and with it every stream after it.
 */
describe('a connector error longer than a stream state item can hold', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let dynamo: Awaited<ReturnType<typeof startLocalDynamoDb>>;
  let store: DynamoDbStateStore;

  beforeAll(async () => {
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, 'long-connector-error');
    store = new DynamoDbStateStore({
      client: dynamo.client,
      tableName: 'long-connector-error',
      clock,
    });
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  const streamAnswering = (status: number, length: number) => {
    const client = createConnectorClient(
      {
        baseUrl: 'http://connector.test',
        clientToken: 'client-token',
        accessToken: 'access-token',
        client: 'tests',
        rateLimit: false,
      },
      { clock, transport: answering(status, length) },
    );
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d', POLL_INTERVAL: '1s' },
      clock.now(),
    );
    const [definition] = streamDefinitions(`long-${status}`, settings);
    const deps = {
      store,
      client,
      publisher: new CollectingPublisher(),
      clock,
      windows: settings.windows,
      pageCount: 1000,
    };
    return { definition: definition!, deps };
  };

  it('parks a stream refused with a 250 KB message, storing a bounded reason', async () => {
    const { definition, deps } = streamAnswering(401, 250_000);
    const outcome = await pollStream(definition, deps, 'test');
    expect(outcome).toMatchObject({ kind: 'failed', parked: true });
    const stored = (await store.getStream(definition.streamId))!;
    expect(stored.parked).toBe(true);
    expect(stored.lastError).toContain('HTTP 401');
    expect(stored.lastError!.length).toBeLessThanOrEqual(STORED_ERROR_MAX_CHARS);
    expect(stored.parkedReason!.length).toBeLessThanOrEqual(STORED_ERROR_MAX_CHARS + 30);
    if (outcome.kind === 'failed')
      expect(outcome.error.length).toBeLessThanOrEqual(STORED_ERROR_MAX_CHARS);
  });

  it('records a failed window whose error is longer than an item, and backs the stream off', async () => {
    const { definition, deps } = streamAnswering(400, 450_000);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'failed' });
    const stored = (await store.getStream(definition.streamId))!;
    expect(stored.consecutiveFailures).toBe(1);
    expect(stored.lastError).toMatch(/^customers\/getAll failed \(.*HTTP 400\): refused: x+…/);
    expect(stored.lastError!.length).toBeLessThanOrEqual(STORED_ERROR_MAX_CHARS);
  });
});
