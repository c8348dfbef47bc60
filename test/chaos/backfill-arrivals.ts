import type { DeliveredChange } from './duplicate-ids.ts';

/** What {@link backfillArrivals} needs of one accepted webhook. */
export type ArrivedChange = Pick<DeliveredChange, 'id' | 'type' | 'subject' | 'time'>;

/** What an emitting backfill run under chaos showed at the receiver. */
export interface BackfillArrivalsResult<T extends ArrivedChange> {
  /** Subjects that existed from the backfill's start to the end and got no `created` since. */
  missing: string[];
  /**
   * The accepted webhooks without each subject's first `created` detected since the backfill
   * began: the backfill publishes every entity once more as `created` (ids of its own), which
   * the duplicate check would otherwise count as a change delivered again. A second one (a
   * resumed backfill that published again under other ids) stays, and is counted.
   */
  withoutRepublished: T[];
}

/**
 * Checks an emitting backfill of `entityType` begun at `startedAt` (epoch ms) against the
 * webhooks accepted, in arrival order: each of `subjects` (the entities that existed when it
 * began and still do) must have a `<entityType>.created` detected since. Pure.
 * @example backfillArrivals(accepted, { entityType: 'customer', startedAt, subjects: ['c1'] }).missing // []
 */
export function backfillArrivals<T extends ArrivedChange>(
  accepted: readonly T[],
  backfill: { entityType: string; startedAt: number; subjects: Iterable<string> },
): BackfillArrivalsResult<T> {
  const created = `${backfill.entityType}.created`;
  /** Each subject's first `created` id detected since the backfill began. */
  const republished = new Map<string, string>();
  for (const change of accepted) {
    if (change.type !== created || republished.has(change.subject)) continue;
    if (Date.parse(change.time) >= backfill.startedAt) republished.set(change.subject, change.id);
  }
  const missing = [...backfill.subjects].filter((subject) => !republished.has(subject));
  const dropped = new Set(republished.values());
  return { missing, withoutRepublished: accepted.filter((change) => !dropped.has(change.id)) };
}
