import { z } from 'zod';
import { type Attempt, AttemptSchema, type Delivery, DeliverySchema } from '../webhooks/store.ts';

/** A time as the admin API shows every time: ISO 8601 in UTC. */
const IsoTimeSchema = z.iso.datetime();

/**
 * A delivery as the admin API shows it: times in ISO 8601, as every other time the API and the
 * CLI's `--json` show (the store keeps epoch ms); `nextAttemptAt` only while it is pending.
 */
export const DeliveryViewSchema = DeliverySchema.omit({
  nextAttemptAt: true,
  createdAt: true,
  updatedAt: true,
  deadAt: true,
}).extend({
  /** When it is sent next, while pending (after a retry's wait, a pause, or its turn). */
  nextAttemptAt: IsoTimeSchema.optional(),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
  /** When it was dead-lettered. */
  deadAt: IsoTimeSchema.optional(),
});

/** A delivery as the admin API shows it (see {@link DeliveryViewSchema}). */
export type DeliveryView = z.infer<typeof DeliveryViewSchema>;

/** An attempt log line as the admin API shows it: times in ISO 8601. */
export const AttemptViewSchema = AttemptSchema.omit({ at: true, nextAttemptAt: true }).extend({
  /** When the request started. */
  at: IsoTimeSchema,
  /** When the next attempt was scheduled, if one was. */
  nextAttemptAt: IsoTimeSchema.optional(),
});

/** An attempt as the admin API shows it (see {@link AttemptViewSchema}). */
export type AttemptView = z.infer<typeof AttemptViewSchema>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The admin API's view of a stored delivery. Pure.
 * @example deliveryView(delivery).createdAt // '2026-01-01T00:00:00.000Z'
 */
export function deliveryView(delivery: Delivery): DeliveryView {
  const { nextAttemptAt, createdAt, updatedAt, deadAt, ...rest } = delivery;
  return {
    ...rest,
    ...(delivery.status === 'pending' ? { nextAttemptAt: iso(nextAttemptAt) } : {}),
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
    ...(deadAt === undefined ? {} : { deadAt: iso(deadAt) }),
  };
}

/**
 * The admin API's view of an attempt log line. Pure.
 * @example attemptView(attempt).at // '2026-01-01T00:00:00.000Z'
 */
export function attemptView(attempt: Attempt): AttemptView {
  const { at, nextAttemptAt, ...rest } = attempt;
  return {
    ...rest,
    at: iso(at),
    ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: iso(nextAttemptAt) }),
  };
}
