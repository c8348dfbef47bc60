import { z } from 'zod';
import { isJsonObject } from '../json-object.ts';
import { ASKED_LIVE_MEMBER } from '../publish/dispatch-queue.ts';
import type { DispatchLane } from '../publish/publisher.ts';

/**
 * The fields of a CloudEvent the dispatcher reads, and only those: everything else (the
 * records in `data.current` and `data.previous`, the patch) is left out of the parsed event,
 * because the body we store, sign and POST is the event's JSON as received, kept apart. A batch
 * holds its events until its last delivery, so it need not hold each one's records too.
 */
export const DispatchEventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  /** `connector/<connectionId>` for change events; names the stream a delivery counts for. */
  source: z.string().optional(),
  /** The entity the event is about; operational events may have none (each is then its own). */
  subject: z.string().optional(),
  /** When the change was detected (ISO 8601): a backfill counts its streams' events detected since it started. */
  time: z.string().optional(),
  data: z
    .object({
      scope: z
        .object({
          enterpriseId: z.string().optional(),
          chainId: z.string().optional(),
        })
        .nullish(),
      changedFields: z.array(z.string()).nullish(),
    })
    .nullish(),
});

/** A CloudEvent as far as the dispatcher cares (see {@link DispatchEventSchema}). */
export type DispatchEvent = z.infer<typeof DispatchEventSchema>;

/** The EventBridge envelope that an EventBridge rule puts on the dispatch queue. */
export const EventBridgeEnvelopeSchema = z.looseObject({
  version: z.string().optional(),
  id: z.string().optional(),
  'detail-type': z.string(),
  source: z.string(),
  detail: DispatchEventSchema,
});

/**
 * The members of an EventBridge envelope the dispatcher reads (those of
 * {@link EventBridgeEnvelopeSchema} it requires, and {@link ASKED_LIVE_MEMBER}), without copying
 * the others.
 */
export const DispatchEnvelopeSchema = EventBridgeEnvelopeSchema.pick({
  'detail-type': true,
  source: true,
  detail: true,
})
  .extend({ [ASKED_LIVE_MEMBER]: z.literal(true).optional() })
  .strip();

/** One EventBridge envelope (see {@link EventBridgeEnvelopeSchema}). */
export type EventBridgeEnvelope = z.infer<typeof EventBridgeEnvelopeSchema>;

/** Our own queue message: attempt (or re-defer) one delivery. */
export const DeliveryMessageSchema = z.object({
  kind: z.literal('delivery'),
  deliveryId: z.string().min(1),
  /** The delivery's subscription, so a batch groups messages by endpoint without a read. */
  subscriptionId: z.string().min(1).optional(),
  /**
   * The subject of the delivery's event (its `subject`, else its id), so its attempt keeps its
   * place among the subject's deliveries without a read. Older messages have none.
   */
  subject: z.string().min(1).optional(),
  /**
   * The lane whose work the delivery is at its endpoint (see messageLane): the lane whose line
   * at a slow endpoint it was deferred from, for its turn there (the queue then marks the
   * message as waiting in line, WAITS_IN_LINE_ATTRIBUTE), or `bulk` for a bulk delivery's retry
   * or deferral. A bulk one comes back on the dispatch queue yet keeps its place behind live
   * work at the endpoint. Absent otherwise: the work of the lane that takes the message.
   */
  lane: z.enum(['live', 'bulk']).optional(),
  /**
   * Sent ahead for a live change of its subject that waits behind it (see
   * DispatchBatch.notBefore): its attempt does not wait for the time a deferral (a pause, a turn
   * in a slow endpoint's line) gave it, only for its own retry's, and it is live work from then
   * on. Absent otherwise.
   */
  ahead: z.literal(true).optional(),
});

/** A delivery message (see {@link DeliveryMessageSchema}). */
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/**
 * The message that makes the next attempt of `delivery`, naming its event's subject when known,
 * and with `lane` the lane whose work it is at its endpoint (see DeliveryMessageSchema): when
 * not given, the delivery's own (`bulk` for a backfill's, see DeliverySchema). Pure.
 * @example deliveryMessage({ id: 'd1', subscriptionId: 's1' }, 'c-1')
 * @example deliveryMessage({ id: 'd1', subscriptionId: 's1', lane: 'bulk' }).lane === 'bulk'
 */
export function deliveryMessage(
  delivery: { id: string; subscriptionId: string; lane?: DispatchLane | undefined },
  subject?: string,
  lane: DispatchLane | undefined = delivery.lane,
): DeliveryMessage {
  return {
    kind: 'delivery',
    deliveryId: delivery.id,
    subscriptionId: delivery.subscriptionId,
    ...(subject === undefined ? {} : { subject }),
    ...(lane === undefined ? {} : { lane }),
  };
}

/**
 * A stored event body as far as the dispatcher reads it; undefined when it is not an event
 * (a retry has the body, not the parsed event). Pure.
 */
export function eventOfBody(body: string): DispatchEvent | undefined {
  try {
    return DispatchEventSchema.safeParse(JSON.parse(body)).data;
  } catch {
    return undefined;
  }
}

/**
 * Whether a dispatch queue body (its JSON, parsed but not yet validated) is one of our delivery
 * messages, which say their kind; anything else on the queue should be an EventBridge envelope.
 * Told before validating, so each body is checked against its own schema only
 * ({@link DeliveryMessageSchema} or {@link DispatchEnvelopeSchema}), not tried against both.
 */
export function isDeliveryMessageBody(json: unknown): boolean {
  return isJsonObject(json) && json.kind === 'delivery';
}
