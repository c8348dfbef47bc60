import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfDispatchMetrics } from '../../shared/webhooks/emf-dispatch-metrics.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('EmfDispatchMetrics', () => {
  it('publishes the delivery counters under the names the failure-rate alarm reads', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'dispatcher' });
    const emf = new EmfDispatchMetrics(metrics);
    emf.count('delivered', 3);
    emf.count('failed');
    metrics.publishStoredMetrics();
    const document = JSON.parse(lines.join('').trim()) as Record<string, unknown>;
    expect(document).toMatchObject({
      DeliveriesSucceeded: 3,
      DeliveriesFailed: 1,
      service: 'dispatcher',
    });
  });
});
