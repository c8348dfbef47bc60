import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectorRequestTally, reportConnectorUse } from '../../functions/connector-use.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The EMF documents Powertools printed while `run` ran. */
function emfOf(run: (metrics: Metrics) => void): Record<string, unknown>[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n'));
    return true;
  });
  try {
    const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
    run(metrics);
    metrics.publishStoredMetrics();
  } finally {
    vi.restoreAllMocks();
  }
  return lines.flatMap((line) => {
    try {
      const doc = JSON.parse(line) as Record<string, unknown>;
      return '_aws' in doc ? [doc] : [];
    } catch {
      return [];
    }
  });
}

const budget = {
  requestsInWindow: 150,
  limit: 200,
  liveReserve: 10,
  queued: { live: 0, bulk: 0 },
  pausedUntil: null,
  slowedUntil: null,
};

describe('connector use of a poll job', () => {
  it('counts every request and the 429 answers, and starts again after a take', () => {
    const tally = new ConnectorRequestTally();
    tally.onRequest('customers/getAll', 200);
    tally.onRequest('customers/getAll', 429);
    tally.onRequest('resources/getAll', 'network');
    tally.onRequest('resources/getAll', 429);
    expect(tally.take()).toEqual({ requests: 4, throttled: 2 });
    expect(tally.take()).toEqual({ requests: 0, throttled: 0 });
  });

  it('reports requests, 429s and the share of the token budget used as metrics', () => {
    const emf = emfOf((metrics) =>
      reportConnectorUse({ requests: 13, throttled: 1 }, budget, metrics),
    );
    expect(emf).toEqual([
      expect.objectContaining({
        ConnectorRequests: 13,
        ConnectorThrottled: 1,
        ConnectorBudgetUsedPercent: 75,
        service: 'poller',
      }),
    ]);
  });

  it('reports zero requests and no budget share for a job whose client keeps no budget', () => {
    const emf = emfOf((metrics) =>
      reportConnectorUse({ requests: 0, throttled: 0 }, undefined, metrics),
    );
    expect(emf).toEqual([expect.objectContaining({ ConnectorRequests: 0, ConnectorThrottled: 0 })]);
    expect(emf[0]).not.toHaveProperty('ConnectorBudgetUsedPercent');
  });
});
