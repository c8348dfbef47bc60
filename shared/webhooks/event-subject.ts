import { type DispatchEvent, eventOfBody } from './messages.ts';

/**
 * What orders an event's deliveries: its subject, or the event itself when it has none. Pure.
 * @example subjectKey({ id: 'evt_1', type: 'customer.updated', subject: 'c-1' }) === 'c-1'
 */
export function subjectKey(event: DispatchEvent): string {
  return event.subject ?? event.id;
}

/**
 * The {@link subjectKey} of a stored event body; undefined when the body is not an event (it
 * then keeps no place among other deliveries). Pure.
 */
export function subjectOfBody(body: string): string | undefined {
  const event = eventOfBody(body);
  return event === undefined ? undefined : subjectKey(event);
}
