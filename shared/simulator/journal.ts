import { z } from 'zod';
import { EntityTypeSchema } from '../changes/entity-types.ts';

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

/** Append-only list of mutations; `seq` starts at 1 and equals position + 1. */
export class Journal {
  private readonly entries: JournalEntry[] = [];

  /** Records a mutation at `timeMs` and returns the entry. */
  append(
    timeMs: number,
    entityType: JournalEntityType,
    entityId: string,
    kind: MutationKind,
    changedFields: readonly string[] = [],
  ): JournalEntry {
    const entry: JournalEntry = {
      seq: this.entries.length + 1,
      time: new Date(timeMs).toISOString(),
      entityType,
      entityId,
      kind,
      changedFields: [...changedFields],
    };
    this.entries.push(entry);
    return entry;
  }

  /** Entries with `seq` greater than `sinceSeq` (0 = all), oldest first. */
  since(sinceSeq = 0): JournalEntry[] {
    return this.entries.slice(Math.max(0, sinceSeq));
  }

  /** The sequence number of the newest entry (0 when empty). */
  get lastSeq(): number {
    return this.entries.length;
  }
}
