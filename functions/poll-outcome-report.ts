import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BRIDGE_METRICS } from '../infra/metric-names.ts';
import type { PollOutcome } from '../shared/polling/poll-stream.ts';

/**
 * Logs a stream's poll outcome and counts what the alarms read: `PollFailures` for a failed
 * poll, `RecordsSetAside` for the records a poll set aside for breaking their schema (a failed
 * or stopped one: on the pages it saved first; their changes were not published: an operator
 * must look). The caller flushes the metrics.
 * @example reportPollOutcome(outcome, logger, metrics)
 */
export function reportPollOutcome(outcome: PollOutcome, logger: Logger, metrics: Metrics): void {
  logger.info('poll finished', { ...outcome });
  // A failed or stopped poll tells what the pages it saved set aside (the run resuming after
  // them does not read them again).
  if (outcome.setAside) {
    logger.warn('records set aside', { streamId: outcome.streamId, ...outcome.setAside });
    metrics.addMetric(BRIDGE_METRICS.recordsSetAside, MetricUnit.Count, outcome.setAside.records);
  }
  if (outcome.kind === 'failed')
    metrics.addMetric(BRIDGE_METRICS.pollFailures, MetricUnit.Count, 1);
}
