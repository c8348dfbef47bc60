import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, ListRulesCommand, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdminWriteThroughExtras,
  buildAdminWriteThrough,
  writeThroughConnection,
} from '../../functions/admin-write-through.ts';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { ValidationError } from '../../shared/errors.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';

// Not contacted: no bulk dispatch queue is configured here.
const dynamo = new DynamoDBClient({ region: 'eu-west-1' });
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:main';
const ENV = {
  STATE_TABLE_NAME: 'bridge',
  POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/poll-jobs',
  CONNECTION_SECRET_ARNS: JSON.stringify({ main: ARN }),
  PUBLISH_EVENT_BUS_NAME: 'bridge-bus',
  PUBLISH_EVENT_SOURCE: 'change-bridge',
  DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch',
};

/** No connection stored at run time. */
const NO_STORED = {
  store: new MemoryConnectionStore(),
  cipher: createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 9))),
};

/** The admin function's write-through as the stack wires it: the `main` connection's secret, none stored. */
function mainWriteThrough(options: Pick<AdminWriteThroughExtras, 'onRefused'> = {}) {
  return buildAdminWriteThrough(readPollLambdaEnv(ENV, 0), ENV, new MemoryStateStore(), dynamo, {
    connections: NO_STORED,
    ...options,
  });
}

describe('admin function write-through (AWS wiring)', () => {
  let sim: RunningSimulator;
  const secrets = mockClient(SecretsManagerClient);
  const events = mockClient(EventBridgeClient);
  const sqs = mockClient(SQSClient);
  // The state table: the connector budget's ledger (an empty one, taking every grant).
  const table = mockClient(DynamoDBDocumentClient);

  beforeAll(async () => {
    table.on(GetCommand).resolves({});
    table.on(PutCommand).resolves({});
    sim = await startSimulator({ seed: 3 });
  });
  afterAll(async () => {
    secrets.restore();
    events.restore();
    sqs.restore();
    table.restore();
    await sim.close();
  });

  it('writes through the only props connection when a call names none, and through none with several', async () => {
    expect(writeThroughConnection(readPollLambdaEnv(ENV, 0))).toBe('main');
    const two = readPollLambdaEnv(
      { ...ENV, CONNECTION_SECRET_ARNS: JSON.stringify({ a: ARN, b: ARN }) },
      0,
    );
    expect(writeThroughConnection(two)).toBeUndefined();
    const writeThrough = buildAdminWriteThrough(two, ENV, new MemoryStateStore(), dynamo, {
      connections: NO_STORED,
    });
    await expect(writeThrough.forward('taxEnvironments/getAll', {})).rejects.toThrow(
      /name the connection to write through: the connectionId query parameter/,
    );
    await writeThrough.close();
  });

  it('refuses a call through a connection whose secret the stack created empty, saying so (not a 500)', async () => {
    // What GetSecretValue answers in AWS for a secret with no value yet.
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).rejects(
      new ResourceNotFoundException({
        message:
          "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const writeThrough = mainWriteThrough();
    const refused = await writeThrough
      .forward('taxEnvironments/getAll', {})
      .catch((e: unknown) => e);
    await writeThrough.close();
    secrets.reset();
    // A ValidationError: the admin API answers 400 with this message, not `internal error`.
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as Error).message).toContain(
      `${ARN}: has no value yet: store the credentials JSON`,
    );
  });

  it('reads the connection secret again once the connector refused its token (rotated since)', async () => {
    const secretWith = (accessToken: string) => ({
      SecretString: JSON.stringify({
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken,
      }),
    });
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves(secretWith('revoked'));
    const writeThrough = mainWriteThrough();
    try {
      expect((await writeThrough.forward('taxEnvironments/getAll', {})).status).toBe(401);
      // put-secret-value with the new token; the old one stays revoked.
      secrets
        .on(GetSecretValueCommand, { SecretId: ARN })
        .resolves(secretWith(sim.tokens.accessToken));
      expect((await writeThrough.forward('taxEnvironments/getAll', {})).status).toBe(200);
    } finally {
      await writeThrough.close();
      secrets.reset();
    }
  });

  it('writes with the credentials of the connection secret, feeds the dispatch queue and puts a rule-matched event on the bus', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({
      SecretString: JSON.stringify({
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
      }),
    });
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    events.on(ListRulesCommand, { EventBusName: 'bridge-bus' }).resolves({
      Rules: [
        {
          Name: 'routing-rules',
          Arn: 'arn:aws:events:eu-west-1:123456789012:rule/bridge-bus/routing-rules',
          State: 'ENABLED',
          EventPattern: JSON.stringify({ 'detail-type': [{ prefix: 'routingRule.' }] }),
        },
      ],
    });
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-1', MD5OfMessageBody: '' }], Failed: [] });
    const writeThrough = mainWriteThrough();
    const rule = [...sim.controls.model.routingRules.all()][0]!.record;
    const result = await writeThrough.forward('routingRules/update', {
      RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, RouteType: { Value: 'AllStayItems' } }],
    });
    expect(result.status).toBe(200);
    expect(result.events).toBe(1);
    const entries = events
      .commandCalls(PutEventsCommand)
      .flatMap((c) => c.args[0].input.Entries ?? []);
    expect(entries.map((entry) => [entry.EventBusName, entry.DetailType])).toEqual([
      ['bridge-bus', 'routingRule.updated'],
    ]);
    const sent = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(sent.map((input) => input.QueueUrl)).toEqual([ENV.DISPATCH_QUEUE_URL]);
    const body = JSON.parse(sent[0]?.Entries?.[0]?.MessageBody ?? '{}');
    expect(body['detail-type']).toBe('routingRule.updated');
    await writeThrough.close();
  });

  it('spends the connection token budget the pollers keep in the state table', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({
      SecretString: JSON.stringify({
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
      }),
    });
    table.resetHistory();
    const writeThrough = mainWriteThrough();
    const result = await writeThrough.forward('taxEnvironments/getAll', {});
    expect(result.status).toBe(200);
    await writeThrough.close();
    // Before, the proxy's grant went to a budget in the function's memory: the pollers of the
    // token (in other invocations) never counted it.
    const grants = table
      .commandCalls(PutCommand)
      .map((call) => call.args[0].input)
      .filter((input) => String(input.Item?.pk).startsWith('BUDGET#'));
    expect(grants.map((input) => input.TableName)).toEqual([ENV.STATE_TABLE_NAME]);
  });

  it('reports an event a target refuses for good, which the caller logs and counts (never dropped unsaid)', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({
      SecretString: JSON.stringify({
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
      }),
    });
    events.on(ListRulesCommand, { EventBusName: 'bridge-bus' }).resolves({
      Rules: [
        {
          Name: 'routing-rules',
          Arn: 'arn:aws:events:eu-west-1:123456789012:rule/bridge-bus/routing-rules',
          State: 'ENABLED',
          EventPattern: JSON.stringify({ 'detail-type': [{ prefix: 'routingRule.' }] }),
        },
      ],
    });
    events.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'MalformedDetail', ErrorMessage: 'detail is not valid' }],
    });
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-1', MD5OfMessageBody: '' }], Failed: [] });
    const refused: { code: string; target: string; subject: string | undefined }[] = [];
    const writeThrough = mainWriteThrough({
      onRefused: (refusals) => {
        for (const { failure, subject } of refusals)
          refused.push({ code: failure.code, target: failure.target, subject });
      },
    });
    // The first rule with its route type changed: an update, so one event.
    const rule = [...sim.controls.model.routingRules.all()][0]!.record;
    const next = rule.RouteType === 'AllStayItems' ? 'SelectedStayItems' : 'AllStayItems';
    const result = await writeThrough.forward('routingRules/update', {
      RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, RouteType: { Value: next } }],
    });
    expect(result.status).toBe(200);
    expect(result.events).toBe(1);
    expect(refused).toEqual([{ code: 'MalformedDetail', target: 'eventbridge', subject: rule.Id }]);
    await writeThrough.close();
  });
});
