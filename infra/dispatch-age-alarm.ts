import { SQS_MAX_DELAY_SECONDS } from '../shared/webhooks/queue.ts';
import type { ChangeBridgeConfig } from './props.ts';
import { VISIBILITY_TIMEOUT_FACTOR } from './stateful.ts';

/**
 * The age (s) of a dispatch queue's oldest message past which its `…Age` alarm fires: the
 * longest a message waits there while the dispatcher works, plus one invocation
 * (`dispatcherTimeoutSeconds`) that holds it before the event source mapping deletes it.
 *
 * Why `ApproximateAgeOfOldestMessage` and this threshold: a dispatcher that receives its
 * messages but cannot finish them (crashing at init, timing out, throttled to 0, failing every
 * record) makes receives, so the `…NotReceived` alarms stay quiet; its errors or throttles come
 * in bursts one visibility timeout apart (each message returns only then), so three breaching
 * 5-minute periods in a row may never happen; and its messages reach the dead-letter queue
 * after 10 receives, 3 hours with the defaults. Their age, though, grows every minute. The
 * metric counts a message from when it was sent, so the threshold must clear what a working
 * dispatcher leaves there:
 * - retries and deferrals (a `Retry-After`, an endpoint's line) are new messages delayed up to
 *   SQS's 900 s (`SQS_MAX_DELAY_SECONDS`; a longer wait is deferred again on receipt, as a new
 *   message), received within seconds once visible: on a standard queue, which holds them;
 * - a record answered as a batch item failure (a transient error) returns after the queue's
 *   visibility timeout (6 × `dispatcherTimeoutSeconds`), and on a FIFO queue the rest of its
 *   message group waits behind it as long.
 * A FIFO queue holds no delayed message (its retries go to the retry queue): there, the
 * visibility timeout alone. With the defaults: 1,080 s + 180 s = 1,260 s (21 minutes).
 *
 * SQS leaves a message received three times without deletion out of the metric, so the alarm
 * sees a message failing every receive only until its third, about 2 visibility timeouts
 * (12 × `dispatcherTimeoutSeconds`): above the threshold from 82 s of timeout up; below that,
 * such a dispatcher is left to `DispatcherErrors` and the dead-letter alarm. Pure.
 * @example dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: 180 }, true) // 1260
 */
export function dispatchAgeAlarmSeconds(
  config: Pick<ChangeBridgeConfig, 'dispatcherTimeoutSeconds'>,
  holdsDelayedMessages: boolean,
): number {
  const visibilitySeconds = config.dispatcherTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR;
  const longestWait = holdsDelayedMessages
    ? Math.max(SQS_MAX_DELAY_SECONDS, visibilitySeconds)
    : visibilitySeconds;
  return longestWait + config.dispatcherTimeoutSeconds;
}
