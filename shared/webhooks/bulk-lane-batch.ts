import type { SQSBatchResponse } from 'aws-lambda';
import { eventStreamId } from '../changes/envelope.ts';
import { type BulkLaneLedger, countByStream } from '../publish/bulk-lane.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import type { DispatchRecord } from './dispatch-record.ts';
import { processDispatchBatch } from './dispatcher.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import type { DispatchEvent } from './messages.ts';

/**
 * Handles one batch of a dispatch lane (in AWS each lane is a queue of its own): a batch of
 * the bulk lane runs behind live work at each endpoint, and the events it handled are counted
 * per stream and noted by id in the ledger, so a subject's live events leave the bulk lane once
 * its latest bulk event is handled, and a stream's once its bulk events are all handled (see
 * LaneRoutingPublisher). Handled means delivered, or noted waiting in the waiting ledger, which
 * holds the subject's later deliveries behind it. A failure to count is logged, not thrown: the
 * events were delivered, and a stream or subject left pending takes the bulk lane a while
 * longer (at most BULK_LANE_STALL_MS). `settle` turns the batch's answer into the one SQS gets
 * (keepGroupOrder for a FIFO queue, which fails more records): an event whose record is answered
 * failed comes back and is counted when it is handled then, not twice. `deadline`: see
 * DispatchBatchOptions.
 * @example await processLaneBatch(event.Records, deps, 'bulk', ledger, (r) => keepGroupOrder(event.Records, r))
 */
export async function processLaneBatch(
  records: readonly DispatchRecord[],
  deps: DispatcherDeps,
  lane: DispatchLane,
  ledger: BulkLaneLedger | undefined,
  settle: (response: SQSBatchResponse) => SQSBatchResponse = (response) => response,
  deadline?: number,
): Promise<SQSBatchResponse> {
  if (lane === 'live' || ledger === undefined)
    return settle(await processDispatchBatch(records, deps, { lane, deadline }));
  const handledRecords: { event: DispatchEvent; messageId: string | undefined }[] = [];
  const processed = await processDispatchBatch(records, deps, {
    lane,
    deadline,
    onEventHandled: (event, messageId) => handledRecords.push({ event, messageId }),
  });
  const result = settle(processed);
  const failed = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier));
  const kept = handledRecords.filter(
    ({ messageId }) => messageId === undefined || !failed.has(messageId),
  );
  const handled = countByStream(
    kept.map(({ event }) => event),
    eventStreamId,
  );
  // A copy acknowledged while another batch of the process still sends the event (no message
  // id) counts, but is not noted: the batch that sends it notes it once it is done.
  const done = kept.flatMap(({ event, messageId }) => (messageId === undefined ? [] : [event.id]));
  await Promise.all([ledger.handled(handled), ledger.handledEvents(done)]).catch(
    (error: unknown) => {
      deps.logger.warn('could not count the bulk lane events handled', {
        streams: [...handled.keys()],
        error: error instanceof Error ? error.message : String(error),
      });
    },
  );
  return result;
}
