import type { Clock } from '../clock.ts';
import type {
  AccountingCategory,
  AccountNote,
  BillingAutomation,
  Customer,
  Export,
  LoyaltyMembership,
  LoyaltyProgram,
  PaymentRequest,
  ProductCategory,
  ReservationGroup,
  Resource,
  ResourceCategory,
  ResourceCategoryAssignment,
  ResourceCategoryImageAssignment,
  ResourceFeature,
  ResourceFeatureAssignment,
  RoutingRule,
  TaxEnvironment,
  Voucher,
} from '../connector/records/index.ts';
import { EntitySet, type Entry, type EntryMeta } from './entity-set.ts';
import { Journal, type JournalEntityType } from './journal.ts';
import type { SimRandom } from './sim-random.ts';
import type { SimWorld } from './world.ts';

/** An API-created or user-created restriction of a service (restrictions/clear splices it). */
export interface SimRestriction {
  Id: string;
  ServiceId: string;
  /** Only API-created restrictions are affected by restrictions/clear (rule 2). */
  origin: 'Api' | 'User';
  conditions: Record<string, unknown>;
  StartUtc: string;
  EndUtc: string;
}

/** A reservation with its order items (for the deprecated reservations/getAllItems). */
export interface SimReservation {
  ReservationId: string;
  EnterpriseId: string;
  ReservationGroupId: string;
  AccountId: string;
  orderItems: SimOrderItem[];
}

/** An order item kept in its enterprise currency; amounts are converted on read. */
export interface SimOrderItem {
  Id: string;
  AccountId: string;
  OrderId: string;
  BillId: string | null;
  AccountingCategoryId: string;
  Count: number;
  unitGross: number;
  currency: string;
  taxRate: number;
  taxRateCode: string;
  RevenueType: string;
  ConsumedUtc: string;
  ClosedUtc: string | null;
  AccountingState: string;
  ProductId: string | null;
}

/** A price override set by activity for one product and one day. */
export interface SimPriceOverride {
  gross: number;
  updatedMs: number;
}

/**
 * A taxation or a tax rate, as taxEnvironments/getAll lists them beside the environments
 * (connector-api.md names what they hold, not their field names or nesting).
 */
export type SimTaxItem = Record<string, unknown>;

/** The in-memory state behind the simulator: record sets, indexes and the journal. */
export class SimModel {
  readonly journal = new Journal();
  readonly customers = new EntitySet<Customer>((r) => r.Id);
  readonly resources = new EntitySet<Resource>((r) => r.Id);
  readonly resourceCategories = new EntitySet<ResourceCategory>((r) => r.Id);
  readonly resourceCategoryAssignments = new EntitySet<ResourceCategoryAssignment>((r) => r.Id);
  readonly resourceCategoryImageAssignments = new EntitySet<ResourceCategoryImageAssignment>(
    (r) => r.Id,
  );
  readonly resourceFeatures = new EntitySet<ResourceFeature>((r) => r.Id);
  readonly resourceFeatureAssignments = new EntitySet<ResourceFeatureAssignment>((r) => r.Id);
  readonly accountNotes = new EntitySet<AccountNote>((r) => r.Id);
  readonly accountingCategories = new EntitySet<AccountingCategory>((r) => r.Id);
  readonly billingAutomations = new EntitySet<BillingAutomation>((r) => r.Id);
  readonly loyaltyPrograms = new EntitySet<LoyaltyProgram>((r) => r.Id);
  readonly loyaltyMemberships = new EntitySet<LoyaltyMembership>((r) => r.Id);
  readonly paymentRequests = new EntitySet<PaymentRequest>((r) => r.Id);
  readonly reservationGroups = new EntitySet<ReservationGroup>((r) => r.Id);
  readonly productCategories = new EntitySet<ProductCategory>((r) => r.Id);
  readonly routingRules = new EntitySet<RoutingRule>((r) => r.Id);
  readonly vouchers = new EntitySet<Voucher>((r) => r.Id);
  readonly exports = new EntitySet<Export>((r) => r.Id);
  readonly taxEnvironments = new EntitySet<TaxEnvironment>((r) => r.Code);
  /** The taxations listed beside the tax environments (each `Code`, `Name`). */
  readonly taxations: SimTaxItem[] = [];
  /** The tax rates listed beside the tax environments (each `Code`, `TaxationCode`, `Strategy`). */
  readonly taxRates: SimTaxItem[] = [];

  /**
   * Puts every set's seeded records in order of creation time (see
   * {@link EntitySet.orderByCreation}); a generated dataset calls it once, before any read.
   */
  orderByCreation(): void {
    for (const set of [
      this.customers,
      this.resources,
      this.resourceCategories,
      this.resourceCategoryAssignments,
      this.resourceCategoryImageAssignments,
      this.resourceFeatures,
      this.resourceFeatureAssignments,
      this.accountNotes,
      this.accountingCategories,
      this.billingAutomations,
      this.loyaltyPrograms,
      this.loyaltyMemberships,
      this.paymentRequests,
      this.reservationGroups,
      this.productCategories,
      this.routingRules,
      this.vouchers,
      this.exports,
      this.taxEnvironments,
    ])
      set.orderByCreation();
  }
  readonly restrictions: SimRestriction[] = [];
  readonly reservations = new Map<string, SimReservation>();
  /** Key `${ProductId}:${TimeUnitStartUtc}`. */
  readonly priceOverrides = new Map<string, SimPriceOverride>();
  /**
   * {@link emailKey} (chain and lower-cased email) to customer id: customers/update rule 3 needs
   * a fast lookup, and an email is unique within a hotel (chain), not across independent ones.
   */
  readonly emailOwners = new Map<string, string>();
  /** Creation time of exports still moving through their lifecycle. */
  readonly exportTimeline = new Map<string, number>();

  private readonly chainOfEnterprise: ReadonlyMap<string, string>;

  /**
   * Whether a soft delete or a restore moves the record's `UpdatedUtc` and update time (default
   * true). The contract leaves it open: customers/getAll has a DeletedUtc filter of its own,
   * which suggests the service may keep `UpdatedUtc` on a delete; false simulates that reading,
   * in which an `UpdatedUtc` window never shows a delete or a restore.
   */
  deletesMoveUpdatedUtc = true;

  /**
   * Commit lag (ms, default 0): each mutation is stamped this long before it becomes visible, as
   * a database stamps a record at the start of a transaction that commits later. A record then
   * shows up with `CreatedUtc`/`UpdatedUtc` (and the filters' times) in a window a poll may
   * already have read; the bridge's overlap is there for it (POLL_OVERLAP + POLL_SETTLE_LAG).
   */
  commitLagMs = 0;

  /**
   * Told of every record {@link create} inserts while it is set: the activity sets it for its
   * own steps, to know the records it made (see ActivityRotation).
   */
  onCreated: ((type: JournalEntityType, key: string) => void) | undefined = undefined;

  constructor(
    readonly world: SimWorld,
    readonly clock: Clock,
    readonly random: SimRandom,
  ) {
    this.chainOfEnterprise = new Map(world.enterprises.map((e) => [e.Id, e.ChainId]));
  }

  /** The chain of an enterprise (the world's first chain for one not known). */
  chainOf(enterpriseId: string): string {
    return this.chainOfEnterprise.get(enterpriseId) ?? this.world.chainId;
  }

  /** The chain of a customer (the world's first chain for one not known). */
  customerChain(customerId: string): string {
    return this.customers.locate(customerId)?.chainId ?? this.world.chainId;
  }

  /**
   * The customer at creation position `index` when it is one of `chainId`, else the next such
   * one after it (wrapping around), so that a hotel's payment requests and reservations are for
   * its own guests: independent hotels (a chain each) share none. Draws nothing at random, and
   * in a one-chain world it is the customer at `index` (the dataset of a seed stays as it was).
   * Undefined when no stored customer is there or the chain has none.
   */
  customerOfChainFrom(index: number, chainId: string): string | undefined {
    const stored = this.customers.storedCount;
    if (this.customers.at(index) === undefined) return undefined;
    for (let step = 0; step < stored; step += 1) {
      const entry = this.customers.at((index + step) % stored);
      if (entry?.chainId === chainId) return entry.record.Id;
    }
    return undefined;
  }

  /** A chain for a new chain-level record: the only one, or one drawn at random. */
  someChain(): string {
    const chains = this.world.chainIds;
    return chains.length === 1 ? chains[0]! : this.random.pick(chains);
  }

  /**
   * Inserts a new record as the newest of its set and journals `created`. The record's own
   * `CreatedUtc` and `UpdatedUtc`, when it has them, are the times the filters test: the
   * caller's meta may have read the clock a millisecond apart.
   */
  create<T>(set: EntitySet<T>, type: JournalEntityType, record: T, meta: EntryMeta): Entry<T> {
    const lag = this.commitLagMs;
    const stamped = lag > 0 ? backdated(record, lag) : record;
    const times =
      lag > 0 ? { createdMs: meta.createdMs - lag, updatedMs: meta.updatedMs - lag } : {};
    const entry = set.insert(stamped, { ...meta, ...times, ...ownTimes(stamped) });
    this.journal.append(entry.createdMs, type, set.keyOf(record), 'created');
    this.onCreated?.(type, set.keyOf(record));
    return entry;
  }

  /** Merges `patch` at the current time, moving `UpdatedUtc` (when the shape has one) and the update time. */
  private applyPatch<T extends object>(
    set: EntitySet<T>,
    entry: Entry<T>,
    patch: Partial<T>,
    movesUpdate = true,
  ): { now: number; stamp: number; changed: string[] } {
    const now = this.clock.now();
    const stamp = now - this.commitLagMs;
    const changed = changedFields(entry.record, patch);
    const next: T = { ...entry.record, ...patch };
    if (movesUpdate && 'UpdatedUtc' in next)
      Object.assign(next, { UpdatedUtc: new Date(stamp).toISOString() });
    entry.record = next;
    if (movesUpdate) set.touch(entry, stamp);
    return { now, stamp, changed };
  }

  /**
   * Applies `patch` to a record at the current time. Fields whose JSON did not change are
   * not reported; with no reported change the entry is journaled as `touched`. `UpdatedUtc`
   * (when the shape has one) and the internal update time always move.
   * @returns the changed field names (empty for a touch), or null for an unknown key.
   */
  update<T extends object>(
    set: EntitySet<T>,
    type: JournalEntityType,
    key: string,
    patch: Partial<T>,
  ): string[] | null {
    const entry = set.get(key);
    if (!entry) return null;
    const { now, changed } = this.applyPatch(set, entry, patch);
    this.journal.append(now, type, key, changed.length > 0 ? 'updated' : 'touched', changed);
    return changed;
  }

  /**
   * Marks a record deleted (its patch sets IsActive false or similar); journals `soft-deleted`.
   * Moves `UpdatedUtc` only when {@link deletesMoveUpdatedUtc}.
   */
  softDelete<T extends object>(
    set: EntitySet<T>,
    type: JournalEntityType,
    key: string,
    patch: Partial<T>,
  ): boolean {
    const entry = set.get(key);
    if (!entry || entry.deletedMs !== null) return false;
    const { now, stamp, changed } = this.applyPatch(set, entry, patch, this.deletesMoveUpdatedUtc);
    entry.deletedMs = stamp;
    this.journal.append(now, type, key, 'soft-deleted', changed);
    return true;
  }

  /** Brings a soft-deleted record back; journals `restored`. */
  restore<T extends object>(
    set: EntitySet<T>,
    type: JournalEntityType,
    key: string,
    patch: Partial<T>,
  ): boolean {
    const entry = set.get(key);
    if (!entry || entry.deletedMs === null) return false;
    const { now, changed } = this.applyPatch(set, entry, patch, this.deletesMoveUpdatedUtc);
    entry.deletedMs = null;
    this.journal.append(now, type, key, 'restored', changed);
    return true;
  }

  /** Removes a record for good; journals `hard-deleted`. */
  hardDelete<T>(set: EntitySet<T>, type: JournalEntityType, key: string): boolean {
    const entry = set.remove(key);
    if (!entry) return false;
    this.journal.append(this.clock.now(), type, key, 'hard-deleted');
    return true;
  }

  /**
   * Drops a record from memory for good (see EntitySet.purge), with what refers to it from the
   * model's own lookups (a customer's email, an export's lifecycle). Journals nothing: a record
   * is purged once its delete was journaled and served (see ActivityRotation). False for an
   * unknown key.
   */
  purge<T>(set: EntitySet<T>, key: string): boolean {
    const entry = set.locate(key);
    if (!entry) return false;
    const record = entry.record as { Email?: unknown };
    if (set === (this.customers as unknown) && typeof record.Email === 'string') {
      const emailOf = emailKey(entry.chainId, record.Email);
      if (this.emailOwners.get(emailOf) === key) this.emailOwners.delete(emailOf);
    }
    if (set === (this.exports as unknown)) this.exportTimeline.delete(key);
    return set.purge(key);
  }

  /** Whether `companyId` names one of the world's companies. */
  hasCompany(companyId: string): boolean {
    return this.world.companyIds.includes(companyId);
  }

  /** The enterprise a service belongs to. */
  enterpriseOfService(serviceId: string): string | undefined {
    for (const enterprise of this.world.enterprises) {
      if (enterprise.services.some((service) => service.Id === serviceId)) return enterprise.Id;
    }
    return undefined;
  }
}

/** Names of the fields of `patch` whose JSON differs from `record` (UpdatedUtc excluded). */
export function changedFields(record: object, patch: object): string[] {
  const before = record as Record<string, unknown>;
  return Object.entries(patch)
    .filter(
      ([field, value]) =>
        field !== 'UpdatedUtc' && JSON.stringify(before[field]) !== JSON.stringify(value),
    )
    .map(([field]) => field)
    .sort();
}

/**
 * Moves a new record's own `CreatedUtc` and `UpdatedUtc` (those it has) `lagMs` earlier, in
 * place: a write's response shows the record as stored.
 */
function backdated<T>(record: T, lagMs: number): T {
  const fields = record as { CreatedUtc?: unknown; UpdatedUtc?: unknown };
  for (const key of ['CreatedUtc', 'UpdatedUtc'] as const) {
    const value = fields[key];
    if (typeof value === 'string' && !Number.isNaN(Date.parse(value)))
      fields[key] = new Date(Date.parse(value) - lagMs).toISOString();
  }
  return record;
}

/** The creation and update times a record states itself, as epoch ms (those it has). */
function ownTimes(record: unknown): Partial<Pick<EntryMeta, 'createdMs' | 'updatedMs'>> {
  const fields = record as { CreatedUtc?: unknown; UpdatedUtc?: unknown };
  const at = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
  const created = at(fields.CreatedUtc);
  const updated = at(fields.UpdatedUtc);
  return {
    ...(Number.isNaN(created) ? {} : { createdMs: created }),
    ...(Number.isNaN(updated) ? {} : { updatedMs: updated }),
  };
}

/**
 * The key of {@link SimModel.emailOwners}: the chain and the email, case-insensitive. Pure.
 * @example emailKey(chainId, 'Ann@Example.com') === emailKey(chainId, 'ann@example.com')
 */
export function emailKey(chainId: string, email: string): string {
  return `${chainId} ${email.toLowerCase()}`;
}
