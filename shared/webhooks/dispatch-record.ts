import { fieldIssues } from '../errors.ts';
import { objectMemberText } from '../json-member-text.ts';
import { ASKED_LIVE_MEMBER } from '../publish/dispatch-queue.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import {
  DeliveryMessageSchema,
  DispatchEnvelopeSchema,
  type DispatchEvent,
  isDeliveryMessageBody,
} from './messages.ts';

/** The parts of an SQS record the dispatcher reads (real `SQSRecord`s fit). */
export interface DispatchRecord {
  messageId: string;
  body: string;
}

/** What a dispatch record's body holds: a delivery message's fields, or an event and its exact bytes. */
export type ParsedBody =
  | {
      kind: 'delivery';
      deliveryId: string;
      subscriptionId?: string;
      subject?: string;
      lane?: DispatchLane;
      ahead?: true;
    }
  | {
      kind: 'event';
      event: DispatchEvent;
      body: string;
      /** A live change queued in the bulk lane for its subject's order (ASKED_LIVE_MEMBER). */
      askedLive?: true;
    };

/**
 * Parses one record's body as a delivery message or an EventBridge envelope; a malformed body
 * is counted, logged and answered `undefined` (retrying cannot fix it). An event's body is the
 * exact text of the envelope's `detail` (as the publisher wrote it), or where that cannot be
 * told apart safely (a `detail` named twice, an escaped member name) the JSON of the `detail`
 * JSON.parse read: valid JSON of the same event either way, stored once, then signed and POSTed
 * as stored at every attempt.
 */
export function parseBody(record: DispatchRecord, deps: DispatcherDeps): ParsedBody | undefined {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  if (isDeliveryMessageBody(json)) {
    const message = DeliveryMessageSchema.safeParse(json);
    if (!message.success) return malformed(record, message.error, deps);
    const { deliveryId, subscriptionId, subject, lane, ahead } = message.data;
    return { kind: 'delivery', deliveryId, subscriptionId, subject, lane, ahead };
  }
  // The envelope's members and the event's few fields the dispatcher reads (DispatchEventSchema):
  // the records in the event's data are not copied.
  const envelope = DispatchEnvelopeSchema.safeParse(json);
  if (!envelope.success) return malformed(record, envelope.error, deps);
  const body =
    objectMemberText(record.body, 'detail') ?? JSON.stringify((json as { detail: unknown }).detail);
  const askedLive = envelope.data[ASKED_LIVE_MEMBER];
  return { kind: 'event', event: envelope.data.detail, body, ...(askedLive ? { askedLive } : {}) };
}

/** Counts and logs a body that is neither message (retrying cannot fix it). */
function malformed(
  record: DispatchRecord,
  error: Parameters<typeof fieldIssues>[0],
  deps: DispatcherDeps,
): undefined {
  deps.metrics.count('malformed');
  deps.logger.warn('dropping malformed dispatch message', {
    messageId: record.messageId,
    issues: fieldIssues(error)
      .slice(0, 3)
      .map((i) => `${i.path || '(root)'}: ${i.message}`),
  });
  return undefined;
}
