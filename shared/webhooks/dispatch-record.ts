import { fieldIssues } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { type DispatchEvent, DispatchMessageSchema, isDeliveryMessage } from './messages.ts';

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
    }
  | { kind: 'event'; event: DispatchEvent; body: string };

/**
 * Parses one record's body as a delivery message or an EventBridge envelope; a malformed body
 * is counted, logged and answered `undefined` (retrying cannot fix it).
 */
export function parseBody(record: DispatchRecord, deps: DispatcherDeps): ParsedBody | undefined {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  const message = DispatchMessageSchema.safeParse(json);
  if (!message.success) {
    deps.metrics.count('malformed');
    deps.logger.warn('dropping malformed dispatch message', {
      messageId: record.messageId,
      issues: fieldIssues(message.error)
        .slice(0, 3)
        .map((i) => `${i.path || '(root)'}: ${i.message}`),
    });
    return undefined;
  }
  if (isDeliveryMessage(message.data)) {
    const { deliveryId, subscriptionId, subject, lane } = message.data;
    return { kind: 'delivery', deliveryId, subscriptionId, subject, lane };
  }
  // Serialise the event as received (the raw `detail`, not the parsed copy, which may reorder
  // keys): these exact bytes are stored, signed and POSTed.
  const detail = typeof json === 'object' && json !== null && 'detail' in json ? json.detail : null;
  return { kind: 'event', event: message.data.detail, body: JSON.stringify(detail) };
}
