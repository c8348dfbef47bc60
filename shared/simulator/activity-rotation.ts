import type { EntitySet, Entry } from './entity-set.ts';
import type { JournalEntityType } from './journal.ts';
import type { SimModel } from './model.ts';

/**
 * The fewest records of one type the activity keeps of those it created, however small the
 * seeded set: past it, it deletes its oldest (see {@link ActivityRotation}).
 */
export const SIM_ROTATION_MIN_KEPT = 200;

/**
 * How long a record the rotation soft-deleted stays readable (with ActivityStates Deleted)
 * before it is dropped from memory: many poll intervals, so a poller that saw the record sees
 * its delete too.
 */
export const SIM_ROTATION_RETENTION_MS = 5 * 60_000;

/** A FIFO of keys with amortized O(1) removal at the head. */
class KeyQueue<V> {
  private items: V[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: V): void {
    this.items.push(item);
  }

  peek(): V | undefined {
    return this.items[this.head];
  }

  shift(): V | undefined {
    const item = this.items[this.head];
    this.head += 1;
    if (this.head > 1024 && 2 * this.head > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/**
 * How a record past its type's quota leaves: `soft` with the patch the activity's own soft
 * deletes use (the record stays readable as deleted for {@link SIM_ROTATION_RETENTION_MS}),
 * `hard` at once (as the activity's own hard deletes; a sweep reports it), or `hard` once
 * `ready` says so (an export once its lifecycle is over).
 */
type Retirement<T> =
  | { kind: 'soft'; patch: Partial<T> }
  | { kind: 'hard'; ready?: (record: T) => boolean };

/** The rotation of one type: the keys of the records the activity created, oldest first. */
class SetRotation<T extends object> {
  /** Created by the activity, not yet retired by the rotation. */
  private readonly kept = new KeyQueue<string>();
  /** Soft-deleted by the rotation (or before), waiting out the retention before the purge. */
  private readonly retired = new KeyQueue<{ key: string; atMs: number }>();

  constructor(
    private readonly model: SimModel,
    private readonly set: EntitySet<T>,
    readonly type: JournalEntityType,
    /** The most records of its own the activity keeps live (see {@link SIM_ROTATION_MIN_KEPT}). */
    readonly quota: number,
    private readonly retirement: Retirement<T>,
  ) {}

  noteCreated(key: string): void {
    this.kept.push(key);
  }

  /** Retires the oldest records past the quota, and purges those retired long enough ago. */
  trim(): void {
    const now = this.model.clock.now();
    while (this.kept.size > this.quota) {
      const key = this.kept.peek()!;
      const entry = this.set.get(key);
      if (entry && !this.retire(key, entry, now)) break;
      this.kept.shift();
      // One hard-deleted meanwhile (or just now) leaves memory at once.
      if (!entry || this.retirement.kind === 'hard') this.model.purge(this.set, key);
    }
    for (;;) {
      const head = this.retired.peek();
      if (!head || now - head.atMs < SIM_ROTATION_RETENTION_MS) return;
      this.retired.shift();
      const entry = this.set.get(head.key);
      // Restored meanwhile: deleted again, and readable as deleted for the retention again.
      if (entry && entry.deletedMs === null) this.retire(head.key, entry, now);
      // Restored and deleted again meanwhile: readable as deleted for the retention from then.
      else if (
        entry &&
        entry.deletedMs !== null &&
        now - entry.deletedMs < SIM_ROTATION_RETENTION_MS
      )
        this.retired.push({ key: head.key, atMs: entry.deletedMs });
      else this.model.purge(this.set, head.key);
    }
  }

  /** Deletes one record the activity created; false when it may not go yet. */
  private retire(key: string, entry: Entry<T>, now: number): boolean {
    const retirement = this.retirement;
    if (retirement.kind === 'hard') {
      if (retirement.ready && !retirement.ready(entry.record)) return false;
      this.model.hardDelete(this.set, this.type, key);
      return true;
    }
    if (entry.deletedMs === null) this.model.softDelete(this.set, this.type, key, retirement.patch);
    this.retired.push({ key, atMs: now });
    return true;
  }
}

/**
 * Keeps the population the activity creates bounded, so a simulator left running with activity
 * (`npm start` for a week) does not grow its memory without end. Per type it creates, the
 * activity keeps at most as many records of its own as were seeded (at least
 * {@link SIM_ROTATION_MIN_KEPT}); past that it deletes its oldest one as the activity's own
 * deletes do (soft-deleted customers, account notes, loyalty memberships and image assignments
 * stay readable as deleted for {@link SIM_ROTATION_RETENTION_MS}; hard-deleted payment requests,
 * reservation groups, product categories, billing automations and expired exports vanish), and
 * then drops it from memory. Seeded records are never dropped. Draws nothing at random, so the
 * activity's sequence for a seed is the same until a quota is reached.
 */
export class ActivityRotation {
  private readonly byType = new Map<JournalEntityType, { noteCreated(key: string): void }>();
  private readonly all: { trim(): void }[] = [];

  constructor(model: SimModel) {
    const add = <T extends object>(
      set: EntitySet<T>,
      type: JournalEntityType,
      retirement: Retirement<T>,
    ) => {
      const rotation = new SetRotation(
        model,
        set,
        type,
        Math.max(SIM_ROTATION_MIN_KEPT, set.storedCount),
        retirement,
      );
      this.byType.set(type, rotation);
      this.all.push(rotation);
    };
    add(model.customers, 'customer', {
      kind: 'soft',
      patch: { IsActive: false, ActivityState: 'Deleted' },
    });
    add(model.accountNotes, 'accountNote', { kind: 'soft', patch: { IsActive: false } });
    add(model.loyaltyMemberships, 'loyaltyMembership', { kind: 'soft', patch: {} });
    add(model.resourceCategoryImageAssignments, 'resourceCategoryImageAssignment', {
      kind: 'soft',
      patch: { IsActive: false },
    });
    add(model.paymentRequests, 'paymentRequest', { kind: 'hard' });
    add(model.reservationGroups, 'reservationGroup', { kind: 'hard' });
    add(model.productCategories, 'productCategory', { kind: 'hard' });
    add(model.billingAutomations, 'billingAutomation', { kind: 'hard' });
    add(model.exports, 'export', { kind: 'hard', ready: (record) => record.Status === 'Expired' });
  }

  /** Notes a record the activity created (types it does not rotate are passed over). */
  noteCreated(type: JournalEntityType, key: string): void {
    this.byType.get(type)?.noteCreated(key);
  }

  /** Brings every type back within its quota (see {@link ActivityRotation}). */
  trim(): void {
    for (const rotation of this.all) rotation.trim();
  }
}
