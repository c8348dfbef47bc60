import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfPublishMetrics } from '../../shared/publish/emf-publish-metrics.ts';

/** EMF documents written to stdout while `run` runs. */
function captureEmf(run: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('EmfPublishMetrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('emits events published per type with target and eventType dimensions', () => {
    const emf = new EmfPublishMetrics(
      new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' }),
    );
    const [document] = captureEmf(() => emf.recordPublished('eventbridge', 'customer.updated', 7));

    expect(document).toMatchObject({
      EventsPublished: 7,
      target: 'eventbridge',
      eventType: 'customer.updated',
    });
    expect(document?._aws).toMatchObject({
      CloudWatchMetrics: [
        { Namespace: 'ChangeBridge', Metrics: [{ Name: 'EventsPublished', Unit: 'Count' }] },
      ],
    });
  });

  it('emits failures with their reason', () => {
    const emf = new EmfPublishMetrics(
      new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' }),
    );
    const [document] = captureEmf(() =>
      emf.recordFailed('sqs', 'resource.deleted', 2, 'EventTooLarge'),
    );

    expect(document).toMatchObject({
      EventsFailed: 2,
      target: 'sqs',
      eventType: 'resource.deleted',
      reason: 'EventTooLarge',
    });
  });

  it('buffers batch sizes until the handler publishes stored metrics', () => {
    const metrics = new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' });
    const emf = new EmfPublishMetrics(metrics);
    const buffered = captureEmf(() => {
      emf.recordBatch('eventbridge', 10, 2_000);
      emf.recordBatch('eventbridge', 3, 600);
      emf.recordRetried('eventbridge', 1);
    });
    expect(buffered).toEqual([]);

    const [document] = captureEmf(() => metrics.publishStoredMetrics());
    expect(document).toMatchObject({
      PublishBatchEntries: [10, 3],
      PublishBatchBytes: [2_000, 600],
      PublishRetriedEntries: 1,
    });
  });
});
