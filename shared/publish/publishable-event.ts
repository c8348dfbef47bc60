import { z } from 'zod';

/**
 * The fields of a change event (design.md, "Event") that publishing relies on. Loose on
 * purpose: the catalogue in shared/changes owns the full shape per event type, and any
 * catalogue event is a publishable event.
 */
export const PublishableEventSchema = z.looseObject({
  specversion: z.literal('1.0'),
  id: z.string().regex(/^evt_[0-9A-Za-z]+$/, 'must be evt_ followed by letters and digits'),
  type: z.string().min(1),
  source: z.string().min(1),
  subject: z.string().optional(),
  time: z.iso.datetime({ offset: true }),
  datacontenttype: z.string().optional(),
  // Change events carry entityType, entityId and change; operational events
  // (subscription.disabled, delivery.failing, …) carry none of them.
  data: z.looseObject({
    entityType: z.string().min(1).optional(),
    entityId: z.string().min(1).optional(),
    change: z.string().min(1).optional(),
    scope: z
      .looseObject({ enterpriseId: z.string().optional(), chainId: z.string().optional() })
      .optional(),
    current: z.unknown().optional(),
    previous: z.unknown().optional(),
    changedFields: z.array(z.string()).optional(),
    patch: z.array(z.unknown()).optional(),
    truncated: z.boolean().optional(),
  }),
});

/** A change event as the publishers see it. */
export type PublishableEvent = z.infer<typeof PublishableEventSchema>;

/**
 * The per-entity key `<entityType>:<entityId>`: the SQS FIFO message group, so events of
 * one entity stay in order while different entities proceed in parallel. An operational
 * event is keyed by its type and subject.
 */
export function entityKeyOf(event: PublishableEvent): string {
  if (event.data.entityType === undefined || event.data.entityId === undefined) {
    return `${event.type}:${event.subject ?? event.id}`;
  }
  return `${event.data.entityType}:${event.data.entityId}`;
}

/** Size in bytes of a string once UTF-8 encoded (every AWS size limit counts bytes). */
export function utf8Bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}
