import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  type ChangeBridgeConfig,
  DISPATCH_BATCH_SIZE,
  DISPATCH_BATCHING_WINDOW_SECONDS,
  FIFO_DISPATCH_BATCH_SIZE,
} from '../props.ts';
import type { ChangeBridgeState } from '../stateful.ts';

/** Poll jobs are taken one at a time: each is every due stream of one connection. */
const POLL_JOB_BATCH_SIZE = 1;
/** SQS's largest batch for a standard queue without a batching window. */

/**
 * The SQS event sources: the poller takes poll jobs one at a time; the dispatcher takes the
 * dispatch queue, the bulk dispatch queue and (with FIFO dispatch queues) the retry queue.
 */
export function addQueueEventSources(
  poller: NodejsFunction,
  dispatcher: NodejsFunction,
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
): void {
  poller.addEventSource(
    new SqsEventSource(state.pollJobQueue, {
      batchSize: POLL_JOB_BATCH_SIZE,
      maxConcurrency: config.pollerMaxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
  // A standard queue's batches: 16 records, gathered for up to a second. A FIFO queue's: 10
  // at most, with no batching window (Lambda's limits for FIFO).
  const standardBatches = {
    batchSize: DISPATCH_BATCH_SIZE,
    maxBatchingWindow: Duration.seconds(DISPATCH_BATCHING_WINDOW_SECONDS),
  };
  const dispatchBatches = config.dispatchQueueFifo
    ? { batchSize: FIFO_DISPATCH_BATCH_SIZE }
    : standardBatches;
  dispatcher.addEventSource(
    new SqsEventSource(state.dispatchQueue, {
      ...dispatchBatches,
      maxConcurrency: config.dispatcherMaxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
  // Bulk work's events: the same function, fewer containers (it tells the lanes apart by
  // the records' source queue).
  dispatcher.addEventSource(
    new SqsEventSource(state.bulkDispatchQueue, {
      ...dispatchBatches,
      maxConcurrency: config.bulkDispatcherMaxConcurrency,
      reportBatchItemFailures: true,
    }),
  );
  // With FIFO dispatch queues, the delivery messages (retries, deferrals) on their own queue.
  if (state.dispatchRetryQueue)
    dispatcher.addEventSource(
      new SqsEventSource(state.dispatchRetryQueue, {
        ...standardBatches,
        maxConcurrency: config.dispatcherMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
}
