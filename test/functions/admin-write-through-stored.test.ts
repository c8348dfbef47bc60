import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminWriteThrough } from '../../functions/admin-write-through.ts';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';
import { ConnectionNotFoundError } from '../../shared/connections/connection-admin.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { ConnectionUnwritableError } from '../../shared/writes/connection-write-through.ts';
import type { WriteThrough } from '../../shared/writes/write-through.ts';

// Not contacted: the budget ledger's table is mocked below.
const dynamo = new DynamoDBClient({ region: 'eu-west-1' });
const MAIN_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:main';
const DEPLOYMENT_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:deployment';
const ENV = {
  STATE_TABLE_NAME: 'bridge',
  POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/poll-jobs',
  DEPLOYMENT_SECRET_ARN: DEPLOYMENT_ARN,
  PUBLISH_EVENT_BUS_NAME: 'bridge-bus',
  PUBLISH_EVENT_SOURCE: 'change-bridge',
  DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch',
  POLL_ENTITIES: 'resource',
};

/*
 * The admin function's connector proxy and the connections stored at run time (POST
 * /connections): a call naming one goes with its AccessToken (sealed in the table) and the
 * deployment secret's ClientToken, whether or not the props hold connections of their own.
 */
describe('admin function write-through of connections stored at run time', () => {
  let sim: RunningSimulator;
  const secrets = mockClient(SecretsManagerClient);
  const table = mockClient(DynamoDBDocumentClient);
  const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 4)));
  let store: MemoryConnectionStore;
  let writeThrough: WriteThrough | undefined;

  beforeAll(async () => {
    table.on(GetCommand).resolves({});
    table.on(PutCommand).resolves({});
    sim = await startSimulator({ seed: 5, rateLimit: false });
    secrets.on(GetSecretValueCommand, { SecretId: DEPLOYMENT_ARN }).resolves({
      SecretString: JSON.stringify({ baseUrl: sim.url, clientToken: sim.tokens.clientToken }),
    });
    secrets.on(GetSecretValueCommand, { SecretId: MAIN_ARN }).resolves({
      SecretString: JSON.stringify({
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
      }),
    });
  });
  afterEach(async () => {
    await writeThrough?.close();
  });
  afterAll(async () => {
    secrets.restore();
    table.restore();
    await sim.close();
  });

  const hotel = (index: number) => sim.controls.model.world.enterprises[index]!;
  /** The enterprises whose token sent a request since the last clear. */
  const enterprisesAsked = () => sim.controls.requestLog().map((entry) => entry.enterpriseId);

  async function proxyWith(env: Record<string, string>) {
    store = new MemoryConnectionStore();
    await store.create({
      id: 'hotel-2',
      enabled: true,
      createdAt: new Date(0).toISOString(),
      accessToken: await cipher.seal('hotel-2', `${sim.tokens.accessToken}-2`),
    });
    writeThrough = buildAdminWriteThrough(
      readPollLambdaEnv(env, 0),
      env,
      new MemoryStateStore(),
      dynamo,
      { connections: { store, cipher } },
    );
    sim.controls.clearRequestLog();
    return writeThrough;
  }

  it('sends a call naming a stored connection with its token, beside a props connection', async () => {
    const proxy = await proxyWith({
      ...ENV,
      CONNECTION_SECRET_ARNS: JSON.stringify({ main: MAIN_ARN }),
    });
    expect((await proxy.forward('taxEnvironments/getAll', {}, 'hotel-2')).status).toBe(200);
    expect(enterprisesAsked()).toEqual([hotel(1).Id]);
    // Naming none: the props connection, as before.
    sim.controls.clearRequestLog();
    expect((await proxy.forward('taxEnvironments/getAll', {})).status).toBe(200);
    expect(enterprisesAsked()).toEqual([hotel(0).Id]);
  });

  it('sends a call naming a stored connection where the props hold none', async () => {
    const proxy = await proxyWith(ENV);
    expect((await proxy.forward('taxEnvironments/getAll', {}, 'hotel-2')).status).toBe(200);
    expect(enterprisesAsked()).toEqual([hotel(1).Id]);
  });

  it('refuses a stored connection once disabled or removed, and an unknown one, sending nothing', async () => {
    const proxy = await proxyWith(ENV);
    expect((await proxy.forward('taxEnvironments/getAll', {}, 'hotel-2')).status).toBe(200);
    sim.controls.clearRequestLog();

    await store.setEnabled('hotel-2', false);
    const disabled = proxy.forward('taxEnvironments/getAll', {}, 'hotel-2');
    await expect(disabled).rejects.toBeInstanceOf(ConnectionUnwritableError);
    await expect(disabled).rejects.toThrow('connection hotel-2 is disabled');

    await store.setEnabled('hotel-2', true);
    await store.remove('hotel-2');
    const removed = proxy.forward('taxEnvironments/getAll', {}, 'hotel-2');
    await expect(removed).rejects.toBeInstanceOf(ConnectionNotFoundError);
    await expect(removed).rejects.toThrow('connection hotel-2 does not exist');
    await expect(proxy.forward('taxEnvironments/getAll', {}, 'nowhere')).rejects.toBeInstanceOf(
      ConnectionNotFoundError,
    );
    expect(enterprisesAsked()).toEqual([]);
  });

  it('opens a connection removed and added again with its new token', async () => {
    const proxy = await proxyWith(ENV);
    expect((await proxy.forward('taxEnvironments/getAll', {}, 'hotel-2')).status).toBe(200);
    await store.remove('hotel-2');
    await store.create({
      id: 'hotel-2',
      enabled: true,
      createdAt: new Date(1).toISOString(),
      accessToken: await cipher.seal('hotel-2', `${sim.tokens.accessToken}-3`),
    });
    sim.controls.clearRequestLog();
    expect((await proxy.forward('taxEnvironments/getAll', {}, 'hotel-2')).status).toBe(200);
    expect(enterprisesAsked()).toEqual([hotel(2).Id]);
  });

  it('says where a connection’s credentials come from: the props one’s secret, a stored one’s sealed token', async () => {
    const proxy = await proxyWith({
      ...ENV,
      CONNECTION_SECRET_ARNS: JSON.stringify({ main: MAIN_ARN }),
    });
    expect(proxy.credentialsOf?.('main')).toBe(`connection main (its secret ${MAIN_ARN})`);
    expect(proxy.credentialsOf?.(undefined)).toBe(`connection main (its secret ${MAIN_ARN})`);
    expect(proxy.credentialsOf?.('hotel-2')).toBe(
      'connection hotel-2 (its AccessToken as `connections add` stored it, the ClientToken of the deployment secret)',
    );
    const none = await proxyWith(ENV);
    expect(none.credentialsOf?.(undefined)).toBe('the connection the call names (connectionId)');
  });
});
