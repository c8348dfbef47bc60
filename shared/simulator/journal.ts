import { z } from 'zod';
import { EntityTypeSchema } from '../changes/entity-types.ts';
import { BoundedLog } from './bounded-log.ts';

/**
 * Journal entries kept (about 170 bytes each, some 40 MB in all): 13 h of the soak's 5
 * mutations a second, 34 h of `npm start`'s 2, 250 s of `--activity 1000`. Older ones are dropped.
 */
export const SIM_JOURNAL_MAX_ENTRIES = 250_000;

/** Entity types the journal names: the event entity names of design.md plus API-only writes. */
export const JournalEntityTypeSchema = z.enum([
  ...EntityTypeSchema.options,
  'loyaltyProgram',
  'routingRule',
  'voucher',
  'restriction',
]);
export type JournalEntityType = z.infer<typeof JournalEntityTypeSchema>;

/**
 * What a mutation did. `touched` means only the update time moved (a poller must emit
 * nothing for it); `soft-deleted` records stay readable with ActivityStates Deleted;
 * `hard-deleted` records vanish.
 */
export const MutationKindSchema = z.enum([
  'created',
  'updated',
  'touched',
  'soft-deleted',
  'hard-deleted',
  'restored',
]);
export type MutationKind = z.infer<typeof MutationKindSchema>;

/** One recorded mutation, readable at `/_sim/journal?since=SEQ`. */
export const JournalEntrySchema = z.object({
  seq: z.number().int().positive(),
  time: z.iso.datetime(),
  entityType: JournalEntityTypeSchema,
  entityId: z.string().min(1),
  kind: MutationKindSchema,
  changedFields: z.array(z.string()),
});
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/**
 * Asked for entries after `since` while some of them were dropped: the answer would have a gap
 * (a 410 at `GET /_sim/journal`).
 */
export class JournalGapError extends Error {
  constructor(
    readonly since: number,
    /** Entries with `seq` up to this one are no longer kept. */
    readonly dropped: number,
    readonly maxEntries: number,
  ) {
    super(
      `since: entries up to seq ${dropped} were dropped (the journal keeps the newest ${maxEntries}), so those after ${since} are not all kept; ask since=${dropped} or later`,
    );
    this.name = 'JournalGapError';
  }
}

/**
 * Append-only list of mutations, of which the newest `maxEntries` are kept; `seq` starts at 1
 * and counts every entry, dropped ones too.
 */
export class Journal {
  private readonly entries: BoundedLog<JournalEntry>;

  constructor(maxEntries = SIM_JOURNAL_MAX_ENTRIES) {
    this.entries = new BoundedLog(maxEntries);
  }

  /** The most entries kept. */
  get maxEntries(): number {
    return this.entries.maxEntries;
  }

  /** Keeps at most `max` entries from now on (the oldest beyond it are dropped at once). */
  setMaxEntries(max: number): void {
    this.entries.setMaxEntries(max);
  }

  /** Entries with `seq` up to this one are no longer kept (0 when none was dropped). */
  get dropped(): number {
    return this.entries.dropped;
  }

  /** Records a mutation at `timeMs` and returns the entry. */
  append(
    timeMs: number,
    entityType: JournalEntityType,
    entityId: string,
    kind: MutationKind,
    changedFields: readonly string[] = [],
  ): JournalEntry {
    const entry: JournalEntry = {
      seq: this.lastSeq + 1,
      time: new Date(timeMs).toISOString(),
      entityType,
      entityId,
      kind,
      changedFields: [...changedFields],
    };
    this.entries.push(entry);
    return entry;
  }

  /**
   * Entries with `seq` greater than `sinceSeq`, oldest first; without `sinceSeq`, every entry
   * kept.
   * @throws JournalGapError when an entry after `sinceSeq` was dropped.
   */
  since(sinceSeq?: number): JournalEntry[] {
    if (sinceSeq === undefined) return this.entries.from();
    const since = Math.max(0, sinceSeq);
    if (since < this.dropped) throw new JournalGapError(since, this.dropped, this.maxEntries);
    return this.entries.from(since - this.dropped);
  }

  /** The sequence number of the newest entry (0 when none was made). */
  get lastSeq(): number {
    return this.entries.dropped + this.entries.size;
  }
}
