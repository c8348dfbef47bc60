import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  reportOldestWatermarkAge,
  reportParkedStreams,
  reportPollOutcome,
} from '../../functions/poll-outcome-report.ts';
import type { PollOutcome } from '../../shared/polling/poll-stream.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The JSON documents (logs and EMF) Powertools printed to either stream while `run` ran. */
function printed(run: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n'));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    run();
  } finally {
    vi.restoreAllMocks();
  }
  return lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

function report(outcomes: PollOutcome[]): Record<string, unknown>[] {
  return printed(() => {
    const logger = new Logger({ serviceName: 'poller' });
    const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
    for (const outcome of outcomes) reportPollOutcome(outcome, logger, metrics);
    metrics.publishStoredMetrics();
  });
}

describe('reportPollOutcome', () => {
  it('counts records set aside in RecordsSetAside, the metric of the set-aside alarm, and warns', () => {
    const documents = report([
      {
        kind: 'polled',
        streamId: 'main:customer',
        caughtUp: true,
        setAside: { records: 2, error: 'Customers[3].Classifications[0]: invalid (Id c-1)' },
      },
      { kind: 'polled', streamId: 'main:reservation', caughtUp: true },
    ]);
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ RecordsSetAside: 2, service: 'poller' })]);
    expect(documents).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'records set aside',
        streamId: 'main:customer',
        records: 2,
      }),
    );
  });

  it('counts the records a failed poll set aside on the pages it saved, and warns', () => {
    const documents = report([
      {
        kind: 'failed',
        streamId: 'main:customer',
        error: 'customers/getAll: internal error',
        parked: false,
        retryAt: 0,
        setAside: { records: 1, error: 'Customers[3].Email: invalid (Id c-1)' },
      },
    ]);
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ PollFailures: 1, RecordsSetAside: 1 })]);
    expect(documents).toContainEqual(
      expect.objectContaining({ level: 'WARN', message: 'records set aside', records: 1 }),
    );
  });

  it('counts the records a poll stopped midway set aside on the pages it saved', () => {
    const documents = report([
      {
        kind: 'skipped',
        streamId: 'main:customer',
        reason: 'stopped',
        setAside: { records: 3, error: 'Customers[3].Email: invalid (Id c-1)' },
      },
    ]);
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ RecordsSetAside: 3 })]);
    expect(emf[0]).not.toHaveProperty('PollFailures');
  });

  it('counts a failed poll in PollFailures and nothing set aside', () => {
    const documents = report([
      { kind: 'failed', streamId: 'main:customer', error: 'boom', parked: false, retryAt: 0 },
    ]);
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ PollFailures: 1 })]);
    expect(emf[0]).not.toHaveProperty('RecordsSetAside');
  });

  it('counts the streams of a job parked by an authorization error in StreamsParked, when one parks and while one stays parked', () => {
    const documents = printed(() => {
      const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
      reportParkedStreams(
        [
          {
            kind: 'failed',
            streamId: 'main:customer',
            error: '401 Unauthorized',
            parked: true,
            retryAt: 0,
          },
          { kind: 'skipped', streamId: 'main:resource', reason: 'parked' },
          { kind: 'skipped', streamId: 'main:reservation', reason: 'leased' },
          { kind: 'failed', streamId: 'main:export', error: 'boom', parked: false, retryAt: 0 },
          { kind: 'polled', streamId: 'main:accountNote', caughtUp: true },
        ],
        metrics,
      );
      metrics.publishStoredMetrics();
    });
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ StreamsParked: 2, service: 'poller' })]);
  });

  it('counts zero parked streams for a job with none, so the parked streams alarm clears', () => {
    const documents = printed(() => {
      const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
      reportParkedStreams([{ kind: 'polled', streamId: 'main:customer', caughtUp: true }], metrics);
      metrics.publishStoredMetrics();
    });
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([expect.objectContaining({ StreamsParked: 0 })]);
  });

  it('sends the oldest watermark age among a job as one metric without a stream dimension', () => {
    const documents = printed(() => {
      const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
      reportOldestWatermarkAge([12, 340.5, 7], metrics);
      metrics.publishStoredMetrics();
    });
    const emf = documents.filter((doc) => '_aws' in doc);
    expect(emf).toEqual([
      expect.objectContaining({ OldestWatermarkAgeSeconds: 340.5, service: 'poller' }),
    ]);
    expect(emf[0]).not.toHaveProperty('Stream');
  });

  it('sends no oldest watermark age for a job whose streams report none (first syncs)', () => {
    const documents = printed(() => {
      const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
      reportOldestWatermarkAge([], metrics);
      metrics.publishStoredMetrics();
    });
    expect(documents.filter((doc) => '_aws' in doc)).toEqual([]);
  });
});
