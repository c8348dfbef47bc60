import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeBridge } from '../../infra/index.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

const fixture = createFunctionsFixture();
afterAll(() => fixture.remove());

/** The poller's environment and the dashboard's body of a bridge built with `streamMetrics`. */
function synth(streamMetrics: boolean | undefined) {
  const stack = new Stack(fixture.app(), 'HotelPlatform');
  const bridge = new ChangeBridge(stack, 'Bridge', {
    functionsDir: fixture.functionsDir,
    ...(streamMetrics === undefined ? {} : { streamMetrics }),
  });
  const template = Template.fromStack(stack);
  const poller = template.toJSON().Resources[
    stack.getLogicalId(bridge.runtime.poller.node.defaultChild as never)
  ] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
  const dashboard = JSON.stringify(
    Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties,
  );
  return { variables: poller.Properties.Environment.Variables, dashboard };
}

describe('per-stream watermark metrics (streamMetrics)', () => {
  it('are sent and graphed by default', () => {
    const { variables, dashboard } = synth(undefined);
    expect(variables.STREAM_METRICS).toBe('true');
    expect(dashboard).toContain('GROUP BY Stream');
  });

  it('can be turned off for thousands of properties: the poller sends none and the dashboard queries none', () => {
    const { variables, dashboard } = synth(false);
    expect(variables.STREAM_METRICS).toBe('false');
    expect(dashboard).not.toContain('GROUP BY Stream');
    // The oldest age, which the alarm reads, stays.
    expect(dashboard).toContain('OldestWatermarkAgeSeconds');
  });
});
