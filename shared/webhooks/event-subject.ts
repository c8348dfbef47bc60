import { type DispatchEvent, eventOfBody } from './messages.ts';

/**
 * What orders an event's deliveries: its subject, or the event itself when it has none or is a
 * `ping`. A ping's subject names its subscription, as do the subscription's own notices
 * (`delivery.failing`, ...): ordered by it, a ping sent to check a just-fixed endpoint waited
 * behind a notice, or an earlier ping, waiting minutes for its retry. Pings keep no order. Pure.
 * @example subjectKey({ id: 'evt_1', type: 'customer.updated', subject: 'c-1' }) === 'c-1'
 * @example subjectKey({ id: 'evt_2', type: 'ping', subject: 'sub_1' }) === 'evt_2'
 */
export function subjectKey(event: DispatchEvent): string {
  return event.type === 'ping' ? event.id : (event.subject ?? event.id);
}

/**
 * The {@link subjectKey} of a stored event body; undefined when the body is not an event (it
 * then keeps no place among other deliveries). Pure.
 */
export function subjectOfBody(body: string): string | undefined {
  const event = eventOfBody(body);
  return event === undefined ? undefined : subjectKey(event);
}
