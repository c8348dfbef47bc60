import type { SQSBatchResponse } from 'aws-lambda';

/** A queue record as far as its group's order goes: its id and, from a FIFO queue, its group. */
export interface GroupedRecord {
  messageId: string;
  attributes?: { MessageGroupId?: string };
}

/**
 * The answer to a FIFO queue's batch that keeps each message group's order: every record after
 * a failed one of the same group is reported failed too, so SQS hands it back behind the
 * failed one instead of taking it as handled first (AWS's rule for partial failures of FIFO
 * batches). Such a record is then handled again, as a repeat (deliveries are at-least-once;
 * receivers deduplicate on `webhook-id`). Records without a group (a standard queue's) leave
 * the answer as it is. Pure.
 * @example keepGroupOrder(event.Records, await processLaneBatch(event.Records, deps, 'live'))
 */
export function keepGroupOrder(
  records: readonly GroupedRecord[],
  response: SQSBatchResponse,
): SQSBatchResponse {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const failedGroups = new Set<string>();
  const failures = [...response.batchItemFailures];
  for (const record of records) {
    const group = record.attributes?.MessageGroupId;
    if (group === undefined) continue;
    if (failed.has(record.messageId)) failedGroups.add(group);
    else if (failedGroups.has(group)) {
      failures.push({ itemIdentifier: record.messageId });
      failed.add(record.messageId);
    }
  }
  return { batchItemFailures: failures };
}
