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

/**
 * Whether a poll outcome is a stream parked by an authorization error: one the poll parked, or
 * one it found parked (and made no request for). Pure.
 * @example isParked({ kind: 'skipped', streamId: 'main:customer', reason: 'parked' }) === true
 */
export function isParked(outcome: PollOutcome): boolean {
  return (
    (outcome.kind === 'failed' && outcome.parked === true) ||
    (outcome.kind === 'skipped' && outcome.reason === 'parked')
  );
}

/**
 * Counts in `StreamsParked` the streams of one poll job that an authorization error parked: those
 * it parked and those it found parked (each makes no request and fails no more, so the poll
 * failures count a stream once, when it parks). Sent for every job, zero included, so the alarm
 * on it clears once the job's streams are polled again; a period without jobs leaves it as it is.
 * The caller flushes the metrics.
 * @example reportParkedStreams(outcomes, metrics)
 */
export function reportParkedStreams(outcomes: readonly PollOutcome[], metrics: Metrics): void {
  const parked = outcomes.filter(isParked).length;
  metrics.addMetric(BRIDGE_METRICS.streamsParked, MetricUnit.Count, parked);
}

/**
 * Sends `OldestWatermarkAgeSeconds`, the oldest watermark age among a poll job's streams (those
 * past their first sync), with no stream dimension: the watermark age alarm reads this one
 * metric, whatever the number of streams (a Metrics Insights query over per-stream metrics reads
 * at most 10,000 of them). Nothing when no stream of the job reports one. The caller flushes.
 * @example reportOldestWatermarkAge([12, 340], metrics)
 */
export function reportOldestWatermarkAge(ageSeconds: readonly number[], metrics: Metrics): void {
  if (ageSeconds.length === 0) return;
  metrics.addMetric(
    BRIDGE_METRICS.oldestWatermarkAgeSeconds,
    MetricUnit.Seconds,
    Math.max(...ageSeconds),
  );
}
