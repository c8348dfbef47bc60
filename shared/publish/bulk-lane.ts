import { z } from 'zod';
import { eventStreamId } from '../changes/envelope.ts';
import type { Clock } from '../clock.ts';

/**
 * A stream whose bulk events have not moved for this long is taken as drained: one that went
 * to the bulk queue's dead-letter queue (or was dropped as malformed) is never counted as
 * handled, and would otherwise keep its stream's live events in the bulk lane for good.
 */
export const BULK_LANE_STALL_MS = 15 * 60_000;

/**
 * How long a subject's mark and a handled event's note are kept (the state table's TTL): SQS
 * keeps a message 14 days at most, so no bulk event outlives the mark that names it.
 */
export const BULK_LANE_MARK_TTL_MS = 14 * 86_400_000;

/**
 * A subject's latest event sent to the bulk lane: `subject` is {@link bulkSubjectOf} the event.
 * A live event of that subject may leave the bulk lane once this event is handled.
 */
export interface BulkSubjectMark {
  subject: string;
  eventId: string;
}

/**
 * The key under which the bulk lane knows an event's subject: its stream and entity id, or
 * undefined for an event of no stream or no entity (which the lanes treat as unsure). Pure.
 * @example bulkSubjectOf(event) === 'main:customer#c-1'
 */
export function bulkSubjectOf(event: {
  source?: string | undefined;
  type: string;
  data: { entityId?: string | undefined };
}): string | undefined {
  const streamId = eventStreamId(event);
  const entityId = event.data.entityId;
  return streamId === undefined || entityId === undefined ? undefined : `${streamId}#${entityId}`;
}

/**
 * The latest event of each subject among `events` (in their order), as marks; events of no
 * subject are left out. Pure.
 */
export function latestMarks<E extends Parameters<typeof bulkSubjectOf>[0] & { id: string }>(
  events: readonly E[],
): BulkSubjectMark[] {
  const latest = new Map<string, string>();
  for (const event of events) {
    const subject = bulkSubjectOf(event);
    if (subject !== undefined) latest.set(subject, event.id);
  }
  return [...latest].map(([subject, eventId]) => ({ subject, eventId }));
}

/** One stream's bulk events: queued and handled so far, and when either last moved (epoch ms). */
export const BulkLaneCountSchema = z.object({
  queued: z.number().int().nonnegative(),
  handled: z.number().int().nonnegative(),
  movedAt: z.number(),
});

/** One stream's bulk events (see {@link BulkLaneCountSchema}). */
export type BulkLaneCount = z.infer<typeof BulkLaneCountSchema>;

/**
 * Whether a stream still has bulk events on their way at `now`: more queued than handled, and
 * the count moved within {@link BULK_LANE_STALL_MS}. Pure.
 * @example isBulkPending({ queued: 3, handled: 2, movedAt: 0 }, 1_000) === true
 */
export function isBulkPending(count: BulkLaneCount | undefined, now: number): boolean {
  return (
    count !== undefined && count.queued > count.handled && now - count.movedAt < BULK_LANE_STALL_MS
  );
}

/**
 * Where the AWS deployment counts, per stream, the events sent to the bulk dispatch queue and
 * those the dispatcher has handled from it, and knows per subject the latest event sent there:
 * while a stream has some on their way, a live event of a subject whose latest bulk event is
 * not handled yet takes the bulk lane too, so none overtakes an earlier event of its subject;
 * the stream's other subjects stay live. Counters only grow (atomic additions), so pollers and
 * dispatchers never lose an update; a mark is the publisher's, a handled note the dispatcher's.
 */
export interface BulkLaneLedger {
  /** Adds events about to be sent to the bulk lane, per stream (before they are sent). */
  queued(counts: ReadonlyMap<string, number>): Promise<void>;
  /** Adds bulk events handled (or refused for good, never to be handled), per stream. */
  handled(counts: ReadonlyMap<string, number>): Promise<void>;
  /** The streams among `streamIds` with bulk events still on their way (strongly consistent). */
  pending(streamIds: readonly string[]): Promise<Set<string>>;
  /** Notes each subject's latest event about to be sent to the bulk lane (before it is sent). */
  marked(marks: readonly BulkSubjectMark[]): Promise<void>;
  /** Notes bulk events handled (or refused for good), by id. */
  handledEvents(eventIds: readonly string[]): Promise<void>;
  /**
   * The subjects among `subjects` whose latest bulk event is not noted handled (strongly
   * consistent); a subject never marked is not among them.
   */
  waitingSubjects(subjects: readonly string[]): Promise<Set<string>>;
}

/** {@link BulkLaneLedger} in memory: the contract tests' reference. */
export class MemoryBulkLaneLedger implements BulkLaneLedger {
  private readonly counts = new Map<string, BulkLaneCount>();
  private readonly marks = new Map<string, string>();
  private readonly handledIds = new Set<string>();

  constructor(private readonly clock: Clock) {}

  async queued(counts: ReadonlyMap<string, number>): Promise<void> {
    this.add(counts, 'queued');
  }

  async handled(counts: ReadonlyMap<string, number>): Promise<void> {
    this.add(counts, 'handled');
  }

  async pending(streamIds: readonly string[]): Promise<Set<string>> {
    const now = this.clock.now();
    return new Set(streamIds.filter((id) => isBulkPending(this.counts.get(id), now)));
  }

  async marked(marks: readonly BulkSubjectMark[]): Promise<void> {
    for (const { subject, eventId } of marks) this.marks.set(subject, eventId);
  }

  async handledEvents(eventIds: readonly string[]): Promise<void> {
    for (const id of eventIds) this.handledIds.add(id);
  }

  async waitingSubjects(subjects: readonly string[]): Promise<Set<string>> {
    return new Set(
      subjects.filter((subject) => {
        const eventId = this.marks.get(subject);
        return eventId !== undefined && !this.handledIds.has(eventId);
      }),
    );
  }

  private add(counts: ReadonlyMap<string, number>, field: 'queued' | 'handled'): void {
    for (const [streamId, count] of counts) {
      if (count <= 0) continue;
      const current = this.counts.get(streamId) ?? { queued: 0, handled: 0, movedAt: 0 };
      this.counts.set(streamId, {
        ...current,
        [field]: current[field] + count,
        movedAt: this.clock.now(),
      });
    }
  }
}

/** Counts of events per stream (events of no stream are left out). Pure. */
export function countByStream<E>(
  events: readonly E[],
  streamOf: (event: E) => string | undefined,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const streamId = streamOf(event);
    if (streamId !== undefined) counts.set(streamId, (counts.get(streamId) ?? 0) + 1);
  }
  return counts;
}
