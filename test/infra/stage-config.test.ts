import { describe, expect, it } from 'vitest';
import { loadStageConfig } from '../../infra/stage-config.ts';
import { EMPTY_ITEM_MESSAGE } from '../../shared/comma-list.ts';
import { ValidationError } from '../../shared/errors.ts';

function contextOf(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe('loadStageConfig', () => {
  it('defaults to stage dev with one connection, one-minute polling and stage-scoped names', () => {
    const config = loadStageConfig(contextOf({}), {});
    expect(config.stage).toBe('dev');
    expect(config.terminationProtection).toBe(true);
    expect(config.bridge).toMatchObject({
      connections: [{ id: 'main' }],
      pollRateMinutes: 1,
      publishTargets: 'eventbridge',
      secretNamePrefix: 'change-bridge/dev',
      serviceName: 'change-bridge-dev',
    });
  });

  it('takes the stage from BRIDGE_STAGE and its settings from the changeBridge context', () => {
    const config = loadStageConfig(
      contextOf({
        changeBridge: {
          prod: {
            connections: [{ id: 'chain' }],
            alarmEmail: 'ops@example.com',
            terminationProtection: true,
          },
          dev: { pollRateMinutes: 10 },
        },
      }),
      {
        BRIDGE_STAGE: 'prod',
        CDK_DEFAULT_ACCOUNT: '123456789012',
        CDK_DEFAULT_REGION: 'eu-west-1',
      },
    );
    expect(config).toMatchObject({ stage: 'prod', account: '123456789012', region: 'eu-west-1' });
    expect(config.bridge.connections).toEqual([{ id: 'chain' }]);
    expect(config.bridge.alarmEmail).toBe('ops@example.com');
    expect(config.bridge.pollRateMinutes).toBe(1);
  });

  it('prefers context stage over the environment and applies string overrides from -c', () => {
    const config = loadStageConfig(
      contextOf({
        stage: 'staging',
        changeBridge: JSON.stringify({ staging: { pollRateMinutes: 2 } }),
        pollRateMinutes: '5',
        connections: 'main, group-b',
      }),
      { BRIDGE_STAGE: 'prod' },
    );
    expect(config.stage).toBe('staging');
    expect(config.bridge.pollRateMinutes).toBe(5);
    expect(config.bridge.connections).toEqual([{ id: 'main' }, { id: 'group-b' }]);
  });

  it('names the offending field of an invalid stage', () => {
    const load = (values: Record<string, unknown>) => () => loadStageConfig(contextOf(values), {});
    expect(load({ stage: 'Prod!' })).toThrow(ValidationError);
    expect(load({ stage: 'Prod!' })).toThrow(/context stage/);
    expect(load({ alarmEmail: 'not-an-email' })).toThrow(/alarmEmail/);
    expect(load({ changeBridge: { dev: { pollRate: 5 } } })).toThrow(/pollRate/);
    expect(load({ changeBridge: { dev: { logRetentionDays: 45 } } })).toThrow(/logRetentionDays/);
    expect(load({ connections: 'ok,Not OK' })).toThrow(/connections\[1\]\.id/);
  });

  it('keeps connections given in the stage settings or with -c connections=main', () => {
    const fromSettings = loadStageConfig(
      contextOf({ changeBridge: { dev: { connections: [{ id: 'main' }] } } }),
      {},
    );
    expect(fromSettings.bridge.connections).toEqual([{ id: 'main' }]);
    const fromCommandLine = loadStageConfig(contextOf({ connections: 'main' }), {});
    expect(fromCommandLine.bridge.connections).toEqual([{ id: 'main' }]);
  });

  it('reads an empty -c connections= as no props connections, also over the stage settings', () => {
    const config = loadStageConfig(
      contextOf({ connections: '', changeBridge: { dev: { connections: [{ id: 'main' }] } } }),
      {},
    );
    expect(config.bridge.connections).toEqual([]);
    expect(loadStageConfig(contextOf({ connections: ' ' }), {}).bridge.connections).toEqual([]);
  });

  it('refuses an empty entry of -c connections (a comma too many), naming its place', () => {
    expect(() => loadStageConfig(contextOf({ connections: 'main,' }), {})).toThrow(
      `context is invalid: connections[1]: ${EMPTY_ITEM_MESSAGE}`,
    );
  });

  it('refuses a -c pollRateMinutes that is not a number, naming the key', () => {
    const load = () => loadStageConfig(contextOf({ pollRateMinutes: 'abc' }), {});
    expect(load).toThrow(ValidationError);
    expect(load).toThrow(/^context is invalid: pollRateMinutes: use a whole number of minutes/);
  });

  it('refuses an unknown plain context key (a misspelt -c), naming it', () => {
    const values = { pollRateMinute: '5' };
    const load = () => loadStageConfig(contextOf(values), {}, Object.keys(values));
    expect(load).toThrow(ValidationError);
    expect(load).toThrow(/^context is invalid: pollRateMinute: unknown key/);
  });

  it('points a ChangeBridge prop given with -c to the stage settings', () => {
    const values = { eventArchive: 'true' };
    const load = () => loadStageConfig(contextOf(values), {}, Object.keys(values));
    expect(load).toThrow(/eventArchive: .*changeBridge\.dev/);
  });

  it("leaves the CDK's own context keys alone (feature flags, aws:cdk:*, lookups)", () => {
    const values = {
      '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion': true,
      'aws:cdk:bundling-stacks': ['**'],
      'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
      'acknowledged-issue-numbers': [32775],
      stage: 'dev',
    };
    expect(loadStageConfig(contextOf(values), {}, Object.keys(values)).stage).toBe('dev');
  });

  it('refuses a props connection named connection, as connections add does (its streams would be lease ids)', () => {
    expect(() => loadStageConfig(contextOf({ connections: 'connection' }), {})).toThrow(
      /connection is reserved/,
    );
    expect(() =>
      loadStageConfig(
        contextOf({ changeBridge: { dev: { connections: [{ id: 'connection' }] } } }),
        {},
      ),
    ).toThrow(/connection is reserved/);
  });

  it('refuses two connections whose ids differ only in dashes, naming the output they share', () => {
    // The Stateful stack's output of a connection secret is ConnectionSecret<id without ->: both
    // would be ConnectionSecretab, which synth refused only as a raw CDK error.
    const attempt = () => loadStageConfig(contextOf({ connections: 'a-b,ab' }), {});
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/connections\[1\]\.id: .*ConnectionSecretab/);
    expect(loadStageConfig(contextOf({ connections: 'a-b,abc' }), {}).bridge.connections).toEqual([
      { id: 'a-b' },
      { id: 'abc' },
    ]);
  });

  it('refuses a key a props connection does not take, naming it (entities there would poll every entity)', () => {
    const attempt = () =>
      loadStageConfig(
        contextOf({
          changeBridge: { dev: { connections: [{ id: 'main', entities: ['customer'] }] } },
        }),
        {},
      );
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/connections\[0\]/);
    expect(attempt).toThrow(/entities/);
  });
});
