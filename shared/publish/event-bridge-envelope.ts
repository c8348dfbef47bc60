import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { z } from 'zod';
import { type PublishableEvent, PublishableEventSchema, utf8Bytes } from './publishable-event.ts';

/**
 * The envelope EventBridge wraps around a PutEvents entry when it delivers it to a target
 * such as SQS (the message body is this JSON). Consumers of the dispatch queue parse it.
 */
export const EventBridgeEnvelopeSchema = z.object({
  version: z.literal('0'),
  id: z.string().min(1),
  'detail-type': z.string().min(1),
  source: z.string().min(1),
  account: z.string().min(1),
  time: z.iso.datetime(),
  region: z.string().min(1),
  resources: z.array(z.string()),
  detail: PublishableEventSchema,
});

/** An EventBridge envelope whose detail is a change event. */
export type EventBridgeEnvelope = z.infer<typeof EventBridgeEnvelopeSchema>;

/** What EventBridge adds to an entry: the envelope id, and where the bus lives. */
export interface EnvelopeContext {
  /** EventBridge assigns a fresh UUID to every event it accepts. */
  id: string;
  account: string;
  region: string;
  /** Used as `time` when the entry has no `Time` (EventBridge uses its receipt time). */
  receivedAt: Date;
}

/** An envelope and the JSON text EventBridge hands to an SQS target (the message body). */
export interface DeliveredEnvelope {
  envelope: EventBridgeEnvelope;
  body: string;
  /** UTF-8 bytes of `body`. */
  bodyBytes: number;
}

/** What the body adds between the envelope's members and its `detail`. */
const DETAIL_MEMBER = ',"detail":';

/**
 * The envelope EventBridge would deliver for `entry`, whose `Detail` is the JSON of `detail`
 * (the event the entry was built from, as publishers build it): `time` is the entry's Time
 * (else receipt time) to the second, as EventBridge writes it. The body is the envelope's JSON
 * with the entry's Detail text as its `detail`, so the event is neither parsed nor serialised
 * again, and its bytes are those the publisher wrote (as on the dispatch queue in AWS). The
 * body's size adds `detailBytes`, the Detail's UTF-8 length when the caller knows it (counted
 * otherwise), to its own part's. Pure.
 */
export function toEventBridgeEnvelope(
  entry: PutEventsRequestEntry,
  detail: PublishableEvent,
  context: EnvelopeContext,
  detailBytes?: number,
): DeliveredEnvelope {
  // One literal with its detail, not `{ ...head, detail }`: V8 gives an object that adds a member
  // after a spread copy a hidden class of its own (see with-members.ts).
  const envelope = {
    version: '0' as const,
    id: context.id,
    'detail-type': entry.DetailType ?? '',
    source: entry.Source ?? '',
    account: context.account,
    time: (entry.Time ?? context.receivedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: context.region,
    resources: entry.Resources ?? [],
    detail,
  };
  // The members before the detail: JSON leaves out a member whose value is undefined.
  const headJson = JSON.stringify({ ...envelope, detail: undefined });
  const detailJson = entry.Detail ?? 'null';
  return {
    envelope,
    body: `${headJson.slice(0, -1)}${DETAIL_MEMBER}${detailJson}}`,
    // The head's closing brace gives way to the member, and closes the body after the detail.
    bodyBytes: utf8Bytes(headJson) + DETAIL_MEMBER.length + (detailBytes ?? utf8Bytes(detailJson)),
  };
}
