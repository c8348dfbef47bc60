import type { DeliveryOrigin } from './delivery-counter.ts';
import type { DispatchEvent } from './messages.ts';
import type { Delivery } from './store.ts';

/** An event from the queue, once per batch however many records carried it. */
export interface IncomingEvent {
  event: DispatchEvent;
  /** The body exactly as received: stored, signed and POSTed. */
  body: string;
  /** Message ids of the records that carried it. */
  recordIds: string[];
  /** A live change queued in the bulk lane for its subject's order: live work all the same. */
  askedLive?: true;
}

/** The first attempt of an event to one subscription, made in the fan-out's own invocation. */
export interface InlineDelivery {
  delivery: Delivery;
  /** The event's subject: deliveries of one subject to one endpoint go one at a time, in order. */
  subject: string;
  body: string;
  /** Live work whatever lane's batch fans it out (see IncomingEvent.askedLive). */
  askedLive?: true;
  recordIds: readonly string[];
  /** The stream and detection instant of the event (`undefined` for operational events), for the delivery counter. */
  origin?: DeliveryOrigin | undefined;
  /**
   * Settles once the delivery is listed under its subscription (a write shared by the
   * batch); the delivery item is created only after, so none exists unlisted. Absent when
   * the delivery lists itself on creation.
   */
  listed?: Promise<void>;
}
