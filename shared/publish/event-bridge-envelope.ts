import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { z } from 'zod';
import { parseOrThrow } from '../errors.ts';
import { PublishableEventSchema } from './publishable-event.ts';

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

/**
 * The envelope EventBridge would deliver for `entry` (whose `Detail` is a change event):
 * `time` is the entry's Time (else receipt time) to the second, as EventBridge writes it.
 * Throws a ValidationError when the Detail is not a change event.
 */
export function toEventBridgeEnvelope(
  entry: PutEventsRequestEntry,
  context: EnvelopeContext,
): EventBridgeEnvelope {
  const detail = parseOrThrow(
    PublishableEventSchema,
    JSON.parse(entry.Detail ?? 'null'),
    'PutEvents entry Detail',
  );
  return {
    version: '0',
    id: context.id,
    'detail-type': entry.DetailType ?? '',
    source: entry.Source ?? '',
    account: context.account,
    time: (entry.Time ?? context.receivedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: context.region,
    resources: entry.Resources ?? [],
    detail,
  };
}
