import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKmsDataKeyApi } from '../../functions/kms-api.ts';
import { SealedTokenSchema } from '../../shared/connections/connection.ts';
import { CONNECTION_KEY_CONTEXT } from '../../shared/connections/data-key-provider.ts';
import { CONNECTIONS_PK } from '../../shared/connections/dynamodb-connection-store.ts';
import { KmsDataKeyProvider } from '../../shared/connections/kms-data-key-provider.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { documentClientOf } from '../../shared/state/document-client.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

/*
 * The connection routes as they run in AWS: the admin function's own handler, built from its
 * environment, on a state table in dynalite, with KMS (which cannot run here) mocked. The
 * token must reach the table sealed under a KMS data key and nothing else: no answer, no log.
 */

const TABLE = 'admin-lambda-connections';
const TOKEN_KEY_ARN = 'arn:aws:kms:eu-west-1:000000000000:key/bridge-tokens';
const TOKEN = 'hotel-token-7f2c9a41';
const DATA_KEY = new Uint8Array(32).fill(42);
const WRAPPED_KEY = new Uint8Array([7, 7, 7, 7]);

const saved = { ...process.env };
const kms = mockClient(KMSClient);
let dynamo: LocalDynamoDb;
const printed: string[] = [];
let handler: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb({ transport: 'http' });
  await createStateTable(dynamo.client, TABLE);
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    STATE_TABLE_NAME: TABLE,
    POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/poll-jobs',
    DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/dispatch',
    EVENT_BUS_NAME: 'bus',
    // The stage's props connection, `main`, with its secret change-bridge/prod/connections/main.
    CONNECTION_IDS: 'main',
    CONNECTION_SECRET_PREFIX: 'change-bridge/prod',
    CONNECTION_TOKEN_KEY_ARN: TOKEN_KEY_ARN,
    POLL_ENTITIES: 'customer,resource',
    POWERTOOLS_METRICS_NAMESPACE: 'ChangeBridge',
    POWERTOOLS_SERVICE_NAME: 'admin-api',
  });
  kms.on(GenerateDataKeyCommand).resolves({ Plaintext: DATA_KEY, CiphertextBlob: WRAPPED_KEY });
  kms.on(DecryptCommand).resolves({ Plaintext: DATA_KEY });
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
  // An instance of the entry module of its own, as a cold start loads it (a worker shares modules).
  const modulePath = '../../functions/admin-api.ts?connections-audit';
  ({ handler } = (await import(/* @vite-ignore */ modulePath)) as {
    handler: typeof handler;
  });
});
afterAll(async () => {
  vi.restoreAllMocks();
  kms.restore();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  await dynamo?.close();
});

async function call(method: string, path: string, body?: unknown, query = '') {
  const result = await handler({
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    headers: {
      host: 'abc123.execute-api.eu-west-1.amazonaws.com',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    requestContext: { http: { method } },
    isBase64Encoded: false,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  } as unknown as APIGatewayProxyEventV2);
  return { status: result.statusCode, body: result.body ? JSON.parse(result.body) : undefined };
}

describe('the connection routes of the admin function (AWS)', () => {
  it('seals the token under a KMS data key, manages the connection, and never shows the token', async () => {
    const answers: unknown[] = [];
    const add = async (id: string, accessToken = TOKEN) => {
      const answer = await call('POST', '/connections', {
        id,
        accessToken,
        entities: 'customer',
        interval: '1m',
      });
      answers.push(answer);
      return answer;
    };

    expect((await add('hotel-prague', `${TOKEN}\n`)).status).toBe(201);
    expect((await add('hotel-brno')).status).toBe(201);
    // The same add again (a retry after a timeout) answers the stored one; another token is refused.
    const again = await add('hotel-prague');
    expect(again).toMatchObject({ status: 200, body: { id: 'hotel-prague', enabled: true } });
    const other = await add('hotel-prague', 'another-hotel-token');
    expect(other.status).toBe(409);
    expect(other.body.error).toContain('taken by a different definition (accessToken differs)');
    // The props connection is read-only here: its token lives in its own secret.
    expect((await add('main')).status).toBe(409);
    const badId = await add('hotel:prague');
    expect(badId).toMatchObject({ status: 400, body: { field: 'id' } });

    // One GenerateDataKey seals every token of the container, under the stack's key and context.
    const generated = kms.commandCalls(GenerateDataKeyCommand);
    expect(generated).toHaveLength(1);
    expect(generated[0]!.args[0].input).toEqual({
      KeyId: TOKEN_KEY_ARN,
      KeySpec: 'AES_256',
      EncryptionContext: CONNECTION_KEY_CONTEXT,
    });

    const documents = documentClientOf(dynamo.client);
    const { Item: item } = await documents.send(
      new GetCommand({ TableName: TABLE, Key: { pk: CONNECTIONS_PK, sk: 'hotel-prague' } }),
    );
    expect(item).toMatchObject({
      enabled: true,
      intervalMs: 60_000,
      accessToken: { v: 1, wrappedKey: Buffer.from(WRAPPED_KEY).toString('base64') },
    });
    expect(JSON.stringify(item)).not.toContain(TOKEN);
    // What a poller opens (KMS Decrypt of the wrapped key, then GCM): the token, without the line break.
    const cipher = createTokenCipher(new KmsDataKeyProvider(createKmsDataKeyApi(), TOKEN_KEY_ARN));
    const sealed = SealedTokenSchema.parse(item!.accessToken);
    expect(await cipher.open('hotel-prague', sealed)).toBe(TOKEN);
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({
      KeyId: TOKEN_KEY_ARN,
      EncryptionContext: CONNECTION_KEY_CONTEXT,
    });

    const listed = await call('GET', '/connections');
    const connections = (listed.body as { connections: { id: string; origin: string }[] })
      .connections;
    expect(connections.map((c) => `${c.id}/${c.origin}`)).toEqual([
      'main/environment',
      'hotel-brno/store',
      'hotel-prague/store',
    ]);
    answers.push(listed);
    answers.push(await call('GET', '/connections/hotel-prague'));
    const disabled = await call('POST', '/connections/hotel-prague/disable');
    expect(disabled.body).toMatchObject({ enabled: false });
    const enabled = await call('POST', '/connections/hotel-prague/enable');
    expect(enabled.body).toMatchObject({ enabled: true });
    expect((await call('POST', '/connections/main/disable')).status).toBe(409);
    answers.push(disabled, enabled);

    const removed = await call('DELETE', '/connections/hotel-prague');
    expect(removed).toEqual({
      status: 200,
      body: { id: 'hotel-prague', removed: true, streamsDeleted: 0, stateDeletion: 'background' },
    });
    expect((await call('GET', '/connections/hotel-prague')).status).toBe(404);
    answers.push(removed);

    expect(JSON.stringify(answers)).not.toContain(TOKEN);
    expect(printed.join('')).not.toContain(TOKEN);
  }, 30_000);
});
