import type { SQSBatchResponse } from 'aws-lambda';
import { formatIssuePath } from '../errors.ts';
import { attemptDelivery } from './attempt.ts';
import { fanOutDeliveryId, newDelivery, startDelivery } from './deliveries.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import {
  type DispatchEvent,
  DispatchEventSchema,
  DispatchMessageSchema,
  isDeliveryMessage,
} from './messages.ts';
import { matchesSubscription } from './subscription.ts';

/** The parts of an SQS record the dispatcher reads (real `SQSRecord`s fit). */
export interface DispatchRecord {
  messageId: string;
  body: string;
}

/**
 * Handles one batch from the dispatch queue, the core of the Lambda handler and of the
 * local loop alike. Bodies are EventBridge envelopes (fanned out: the event is stored and
 * one delivery per matching enabled subscription is enqueued as its own message) or
 * delivery messages (one attempt each). Deliveries to one endpoint run in order, so a
 * 429's pause holds for the rest of the batch; different endpoints run concurrently, so a
 * slow endpoint never delays another. Malformed bodies are logged and dropped (retrying
 * cannot fix them); records that failed on storage or the queue are returned as
 * `batchItemFailures` for SQS to retry.
 * @example await processDispatchBatch(sqsEvent.Records, deps)
 */
export async function processDispatchBatch(
  records: readonly DispatchRecord[],
  deps: DispatcherDeps,
): Promise<SQSBatchResponse> {
  const failures: string[] = [];
  const deliveryRecords: { record: DispatchRecord; deliveryId: string }[] = [];
  const fanOuts: Promise<void>[] = [];
  for (const record of records) {
    const parsed = parseBody(record, deps);
    if (!parsed) continue;
    if (parsed.kind === 'delivery') {
      deliveryRecords.push({ record, deliveryId: parsed.deliveryId });
    } else {
      fanOuts.push(
        fanOutEvent(parsed.event, parsed.body, deps).then(
          () => undefined,
          (error: unknown) => {
            deps.logger.error('fan-out failed', {
              messageId: record.messageId,
              error: String(error),
            });
            failures.push(record.messageId);
          },
        ),
      );
    }
  }
  await Promise.all(fanOuts);
  const groups = await groupByEndpoint(deliveryRecords, deps, failures);
  await runConcurrently(groups, deps.config.endpointConcurrency, async (group) => {
    for (const { record, deliveryId } of group) {
      try {
        await attemptDelivery(deliveryId, deps);
      } catch (error) {
        deps.logger.error('delivery failed', { deliveryId, error: String(error) });
        failures.push(record.messageId);
      }
    }
  });
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

type ParsedBody =
  | { kind: 'delivery'; deliveryId: string }
  | { kind: 'event'; event: DispatchEvent; body: string };

function parseBody(record: DispatchRecord, deps: DispatcherDeps): ParsedBody | undefined {
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
      issues: message.error.issues
        .slice(0, 3)
        .map((i) => `${formatIssuePath(i.path) || '(root)'}: ${i.message}`),
    });
    return undefined;
  }
  if (isDeliveryMessage(message.data))
    return { kind: 'delivery', deliveryId: message.data.deliveryId };
  // Serialise the event as received (the raw `detail`, not the parsed copy, which may reorder
  // keys): these exact bytes are stored, signed and POSTed.
  const detail = typeof json === 'object' && json !== null && 'detail' in json ? json.detail : null;
  return { kind: 'event', event: message.data.detail, body: JSON.stringify(detail) };
}

/**
 * Stores an event and starts one delivery per enabled subscription it matches. Idempotent:
 * a repeated event reuses its stored copy and its deterministic delivery ids.
 * Returns the number of matching subscriptions.
 */
export async function fanOutEvent(
  event: DispatchEvent,
  body: string,
  deps: DispatcherDeps,
): Promise<number> {
  const parsed = DispatchEventSchema.parse(event);
  const now = deps.clock.now();
  await deps.store.putEvent({ id: parsed.id, type: parsed.type, storedAt: now, body });
  const subscriptions = (await deps.store.listSubscriptions()).filter(
    (subscription) => subscription.enabled && matchesSubscription(subscription, parsed),
  );
  await Promise.all(
    subscriptions.map((subscription) =>
      startDelivery(
        newDelivery(fanOutDeliveryId(parsed.id, subscription.id), parsed.id, subscription.id, now),
        deps,
      ),
    ),
  );
  return subscriptions.length;
}

async function groupByEndpoint(
  items: { record: DispatchRecord; deliveryId: string }[],
  deps: DispatcherDeps,
  failures: string[],
): Promise<{ record: DispatchRecord; deliveryId: string }[][]> {
  const groups = new Map<string, { record: DispatchRecord; deliveryId: string }[]>();
  await Promise.all(
    items.map(async (item) => {
      try {
        const delivery = await deps.store.getDelivery(item.deliveryId);
        const key = delivery?.subscriptionId ?? `unknown:${item.deliveryId}`;
        groups.set(key, [...(groups.get(key) ?? []), item]);
      } catch (error) {
        deps.logger.error('delivery lookup failed', {
          deliveryId: item.deliveryId,
          error: String(error),
        });
        failures.push(item.record.messageId);
      }
    }),
  );
  // Keep each endpoint's deliveries in queue order.
  const order = new Map(items.map((item, index) => [item, index]));
  return [...groups.values()].map((group) => group.sort((a, b) => order.get(a)! - order.get(b)!));
}

async function runConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(workers);
}
