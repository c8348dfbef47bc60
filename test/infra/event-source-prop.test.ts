import { describe, expect, it } from 'vitest';
import { resolveChangeBridgeProps } from '../../infra/props.ts';
import { ValidationError } from '../../shared/errors.ts';

describe('the eventSource prop', () => {
  it('is refused at synth when PutEvents would refuse it for every event', () => {
    // EventBridge keeps the `aws.` prefix for AWS services' events: a poller with it would fail
    // every publish at run time.
    expect(() => resolveChangeBridgeProps({ eventSource: 'aws.hotel' })).toThrow(ValidationError);
    expect(() => resolveChangeBridgeProps({ eventSource: 'aws.hotel' })).toThrow(
      /eventSource: must not start with aws\./,
    );
    expect(() => resolveChangeBridgeProps({ eventSource: 's'.repeat(257) })).toThrow(/eventSource/);
    expect(() => resolveChangeBridgeProps({ eventSource: '' })).toThrow(/eventSource/);
  });

  it('takes any other source of 1 to 256 characters, change-bridge by default', () => {
    expect(resolveChangeBridgeProps({}).eventSource).toBe('change-bridge');
    expect(resolveChangeBridgeProps({ eventSource: 'com.acme.hotels' }).eventSource).toBe(
      'com.acme.hotels',
    );
    expect(resolveChangeBridgeProps({ eventSource: 's'.repeat(256) }).eventSource).toHaveLength(
      256,
    );
  });
});
