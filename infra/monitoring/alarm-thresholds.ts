import { parseDuration } from '../../shared/duration.ts';
import { plannerLookaheadMs } from '../../shared/polling/enqueue-poll-jobs.ts';
import { type ChangeBridgeConfig, plannerRateText } from '../props.ts';
import { VISIBILITY_TIMEOUT_FACTOR } from '../stateful.ts';
import { FIVE_MINUTES } from './bridge-metrics.ts';

/**
 * The age (s) of the oldest poll job past which the `PollJobAge` alarm fires: the planner's
 * lookahead (a job's longest delay) plus the poll job queue's visibility timeout (a failed
 * attempt's wait for its retry). 780 s with the defaults (1-minute polling, 120 s poller).
 */
export function pollJobAgeAlarmSeconds(config: ChangeBridgeConfig): number {
  const rateMs = parseDuration(plannerRateText(config));
  const visibilitySeconds = config.pollerTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR;
  return Math.ceil(plannerLookaheadMs(rateMs) / 1000) + visibilitySeconds;
}

/**
 * Evaluation periods (5 minutes each) of a dispatch queue's `…NotReceived` alarm: 3 on a
 * standard queue, whose event source mapping receives a visible message within seconds. A FIFO
 * queue's visible messages may also wait behind one of their message group in flight (an
 * invocation until its timeout, a failed record until the visibility timeout of 6 ×
 * `dispatcherTimeoutSeconds`): there, that visibility timeout and one period more.
 */
export function dispatchNotReceivedPeriods(config: ChangeBridgeConfig, fifo: boolean): number {
  if (!fifo) return 3;
  const visibilitySeconds = config.dispatcherTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR;
  return Math.max(3, Math.ceil(visibilitySeconds / FIVE_MINUTES.toSeconds()) + 1);
}
