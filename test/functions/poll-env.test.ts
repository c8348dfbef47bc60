import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';
import {
  connectionSecretName,
  loadConnectionSecret,
  loadDeploymentSecret,
} from '../../shared/connector/connection-secrets.ts';
import { ValidationError } from '../../shared/errors.ts';

const BASE_ENV = {
  STATE_TABLE_NAME: 'bridge',
  POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/poll-jobs',
  CONNECTION_SECRET_ARNS: JSON.stringify({
    main: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:main',
  }),
};

describe('poll Lambda environment', () => {
  it('reads the planner schedule rate (PLANNER_RATE) apart from POLL_INTERVAL', () => {
    const config = readPollLambdaEnv(
      { ...BASE_ENV, POLL_INTERVAL: '10m', PLANNER_RATE: '120s' },
      Date.UTC(2026, 10, 21),
    );
    expect(config.plannerRateMs).toBe(120_000);
    expect(config.settings.intervalMs).toBe(600_000);
    expect(readPollLambdaEnv(BASE_ENV, 0).plannerRateMs).toBeUndefined();
    expect(() => readPollLambdaEnv({ ...BASE_ENV, PLANNER_RATE: 'often' }, 0)).toThrow(
      /PLANNER_RATE: is not a duration/,
    );
  });

  it('builds one stream per connection and default entity type', () => {
    const config = readPollLambdaEnv(
      { ...BASE_ENV, POLL_ENTITIES: 'customer,resource' },
      Date.UTC(2026, 10, 21),
    );
    expect(config.definitions.map((d) => d.streamId)).toEqual(['main:customer', 'main:resource']);
    expect(config.settings.windows.overlapMs).toBe(5_000);
    expect(config.settings.windows.settleLagMs).toBe(100);
  });

  it('gives every connection the exports and products the variables name', () => {
    const [exportId, productId] = [crypto.randomUUID(), crypto.randomUUID()];
    const config = readPollLambdaEnv(
      {
        ...BASE_ENV,
        POLL_ENTITIES: 'export,productPrice',
        POLL_EXPORT_IDS: ` ${exportId} `,
        POLL_PRODUCT_IDS: `${productId}@Europe/Prague`,
      },
      Date.UTC(2026, 10, 21),
    );
    expect(config.definitions.map((d) => [d.trackedIds, d.products])).toEqual([
      [[exportId], [{ productId, timeZone: 'Europe/Prague' }]],
      [[exportId], [{ productId, timeZone: 'Europe/Prague' }]],
    ]);
  });

  it('asks for the props connections secrets by name, as the stack names them', () => {
    const config = readPollLambdaEnv(
      {
        STATE_TABLE_NAME: 'bridge',
        POLL_JOB_QUEUE_URL: BASE_ENV.POLL_JOB_QUEUE_URL,
        CONNECTION_IDS: 'main,group-b',
        CONNECTION_SECRET_PREFIX: 'change-bridge/prod',
        POLL_ENTITIES: 'customer',
      },
      0,
    );
    expect(config.secretIds).toEqual({
      main: connectionSecretName('change-bridge/prod', 'main'),
      'group-b': 'change-bridge/prod/connections/group-b',
    });
    expect(config.definitions.map((d) => d.streamId)).toEqual([
      'main:customer',
      'group-b:customer',
    ]);
    expect(() => readPollLambdaEnv({ ...BASE_ENV, CONNECTION_IDS: 'main' }, 0)).toThrow(
      /CONNECTION_SECRET_PREFIX/,
    );
  });

  it('sends per-stream watermark metrics unless STREAM_METRICS is false, and names a bad value', () => {
    expect(readPollLambdaEnv(BASE_ENV, 0).streamMetrics).toBe(true);
    expect(readPollLambdaEnv({ ...BASE_ENV, STREAM_METRICS: 'false' }, 0).streamMetrics).toBe(
      false,
    );
    expect(() => readPollLambdaEnv({ ...BASE_ENV, STREAM_METRICS: 'no' }, 0)).toThrow(
      /STREAM_METRICS/,
    );
  });

  it('names the bad variable', () => {
    const attempt = () => readPollLambdaEnv({ ...BASE_ENV, POLL_OVERLAP: 'soon' }, 0);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/POLL_OVERLAP/);
    // As long as a window, the overlap would move the watermark back for ever.
    expect(() => readPollLambdaEnv({ ...BASE_ENV, POLL_OVERLAP: '200d' }, 0)).toThrow(
      /POLL_OVERLAP: must be at most 1d/,
    );
    expect(() => readPollLambdaEnv({ ...BASE_ENV, POLL_SETTLE_LAG: '25h' }, 0)).toThrow(
      /POLL_SETTLE_LAG: must be at most 1d/,
    );
    expect(
      readPollLambdaEnv({ ...BASE_ENV, POLL_OVERLAP: '1d' }, 0).settings.windows.overlapMs,
    ).toBe(86_400_000);
    expect(() => readPollLambdaEnv({ ...BASE_ENV, POLL_ENTITIES: 'customer,guest' }, 0)).toThrow(
      /POLL_ENTITIES/,
    );
    expect(() =>
      readPollLambdaEnv({ ...BASE_ENV, POLL_ENTITIES: 'customer,resource,customer' }, 0),
    ).toThrow(/POLL_ENTITIES: lists customer more than once/);
    expect(() =>
      readPollLambdaEnv({ ...BASE_ENV, POLL_PRODUCT_IDS: 'p1@Europe/Prague' }, 0),
    ).toThrow(/POLL_PRODUCT_IDS/);
    expect(() => readPollLambdaEnv({ ...BASE_ENV, CONNECTION_SECRET_ARNS: 'nope' }, 0)).toThrow(
      /CONNECTION_SECRET_ARNS/,
    );
  });
});

describe('loadConnectionSecret', () => {
  it('reads credentials from the secret JSON', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({
        baseUrl: 'https://api.example.com',
        clientToken: 'ct',
        accessToken: 'at',
      }),
    });
    const config = await loadConnectionSecret(new SecretsManagerClient({}), 'arn:secret');
    expect(config).toMatchObject({
      baseUrl: 'https://api.example.com',
      clientToken: 'ct',
      accessToken: 'at',
    });
    secrets.restore();
  });

  it('reports a malformed secret by field, never by value', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ baseUrl: 'https://x', clientToken: 'super-secret-token' }),
    });
    const error = await loadConnectionSecret(new SecretsManagerClient({}), 'arn:secret').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('accessToken');
    expect((error as Error).message).not.toContain('super-secret-token');
    secrets.restore();
  });

  it.each([
    ['connection', loadConnectionSecret],
    ['deployment', loadDeploymentSecret],
  ])(
    'reports a %s secret created without a value, as Secrets Manager answers it, as having none yet',
    async (_, load) => {
      // The stack creates the secrets empty: GetSecretValue then finds no AWSCURRENT version and
      // throws this (it never answers an empty SecretString).
      const secrets = mockClient(SecretsManagerClient);
      secrets.on(GetSecretValueCommand).rejects(
        new ResourceNotFoundException({
          message:
            "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
          $metadata: { httpStatusCode: 400 },
        }),
      );
      const error = await load(
        new SecretsManagerClient({}),
        'change-bridge/prod/connections/main',
      ).catch((e: unknown) => e);
      secrets.restore();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(
        /change-bridge\/prod\/connections\/main.*has no value yet: store the credentials JSON/,
      );
    },
  );

  it('leaves a secret that does not exist (another ResourceNotFoundException) as Secrets Manager says', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const error = await loadConnectionSecret(new SecretsManagerClient({}), 'arn:secret').catch(
      (e: unknown) => e,
    );
    secrets.restore();
    expect(error).toBeInstanceOf(ResourceNotFoundException);
  });
});
