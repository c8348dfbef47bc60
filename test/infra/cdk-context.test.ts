import { describe, expect, it } from 'vitest';
import { readCdkContext } from '../../infra/cdk-context.ts';

describe('readCdkContext', () => {
  it('reads the context JSON the CDK CLI passes in CDK_CONTEXT_JSON', () => {
    const context = readCdkContext(
      { CDK_CONTEXT_JSON: '{"stage":"prod","pollRateMinutes":"5"}' },
      () => {
        throw new Error('no overflow file was named');
      },
    );
    expect(context).toEqual({ stage: 'prod', pollRateMinutes: '5' });
  });

  it('lays the overflow file over CDK_CONTEXT_JSON, as aws-cdk-lib App does', () => {
    const read: string[] = [];
    const context = readCdkContext(
      {
        CDK_CONTEXT_JSON: '{"stage":"prod","pollRateMinutes":"5"}',
        CONTEXT_OVERFLOW_LOCATION_ENV: '/tmp/ctx.json',
      },
      (path) => {
        read.push(path);
        return { pollRateMinutes: '10', changeBridge: { prod: {} } };
      },
    );
    expect(read).toEqual(['/tmp/ctx.json']);
    expect(context).toEqual({ stage: 'prod', pollRateMinutes: '10', changeBridge: { prod: {} } });
  });

  it('is empty when the CLI passed no context', () => {
    expect(readCdkContext({}, () => ({ stage: 'never read' }))).toEqual({});
  });
});
