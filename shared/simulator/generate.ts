import type { Clock, RandomSource } from '../clock.ts';
import { seededRandom } from '../clock.ts';
import type { ProductCategory, TaxEnvironment } from '../connector/records/index.ts';
import type { EntitySet, EntryMeta } from './entity-set.ts';
import { exportAsOf } from './export-lifecycle.ts';
import {
  makeAccountNote,
  makeCustomer,
  makeLoyaltyMembership,
  makePaymentRequest,
  makeReservationGroup,
} from './factories-guests.ts';
import {
  makeAccountingCategories,
  makeBillingAutomation,
  makeExport,
  makeProductCategory,
  makeRoutingRule,
  makeVoucher,
} from './factories-property.ts';
import {
  accountingByEnterprise,
  generateReservations,
  linkPaymentRequests,
} from './generate-reservations.ts';
import { generateResources } from './generate-resources.ts';
import { generateWorld } from './generate-world.ts';
import { emailKey, SimModel } from './model.ts';
import { DAY_MS, iso, SimRandom, switchableRandom } from './sim-random.ts';

/** Dataset sizes: small (hundreds of records), medium (~10k customers), large (~100k). */
export type DatasetSize = 'small' | 'medium' | 'large';

interface SizeProfile {
  customers: number;
  roomsPerEnterprise: number;
  notes: number;
  memberships: number;
  paymentRequests: number;
  reservationGroups: number;
  productCategoriesPerEnterprise: number;
  billingAutomationsPerEnterprise: number;
  routingRulesPerEnterprise: number;
  companies: number;
}

const SIZES: Readonly<Record<DatasetSize, SizeProfile>> = {
  small: {
    customers: 300,
    roomsPerEnterprise: 20,
    notes: 120,
    memberships: 100,
    paymentRequests: 100,
    reservationGroups: 60,
    productCategoriesPerEnterprise: 6,
    billingAutomationsPerEnterprise: 3,
    routingRulesPerEnterprise: 3,
    companies: 12,
  },
  medium: {
    customers: 10_000,
    roomsPerEnterprise: 80,
    notes: 3_000,
    memberships: 2_500,
    paymentRequests: 3_000,
    reservationGroups: 1_500,
    productCategoriesPerEnterprise: 12,
    billingAutomationsPerEnterprise: 8,
    routingRulesPerEnterprise: 8,
    companies: 60,
  },
  large: {
    customers: 100_000,
    roomsPerEnterprise: 200,
    notes: 30_000,
    memberships: 25_000,
    paymentRequests: 30_000,
    reservationGroups: 15_000,
    productCategoriesPerEnterprise: 20,
    billingAutomationsPerEnterprise: 20,
    routingRulesPerEnterprise: 20,
    companies: 300,
  },
};

/** How far back the generated history reaches. */
export const DATASET_HISTORY_MS = 365 * DAY_MS;

/** Options of {@link generateDataset}. */
export interface DatasetOptions {
  seed: number;
  size: DatasetSize;
  /** The model's clock: activity and API writes after seeding take their times from it. */
  clock: Clock;
  /**
   * The dataset's "now" (epoch ms), default `clock.now()`: every seeded time (creations,
   * updates, exports' ages, reservations, restrictions) is relative to it, so the same seed,
   * size and `seededAtMs` give the same records whatever the clock says.
   */
  seededAtMs?: number;
  /** Random source of the dataset (and of what follows it); defaults to a stream derived from the seed. */
  random?: RandomSource;
  /**
   * Seed of the stream the model draws from once the dataset is built (activity, API writes);
   * default: the dataset's stream goes on. A run that re-seeds the same dataset gives it a new
   * one, so its activity does not replay the ids an earlier run's activity created.
   */
  activitySeed?: number;
  /** Number of enterprises (properties) in the chain (default 3). */
  enterprises?: number;
  /** Customers instead of the size's number (a first sync longer than one budget window). */
  customers?: number;
  /**
   * Every enterprise a chain of its own, with its own customers, notes and loyalty programs
   * (independent hotels, as an integrator connects them), rather than one chain of them all.
   */
  chainPerEnterprise?: boolean;
}

/**
 * Builds a deterministic model: the same seed, size and `seededAtMs` (default the clock's
 * now) give the same records.
 * Records are created in time order over the past year; some were updated or soft-deleted
 * since. Nothing here is journaled: the journal records what happens after start.
 */
export function generateDataset(options: DatasetOptions): SimModel {
  const profile = {
    ...SIZES[options.size],
    customers: options.customers ?? SIZES[options.size].customers,
  };
  const stream = switchableRandom(options.random ?? seededRandom(options.seed));
  const random = new SimRandom(stream.source);
  const world = generateWorld(
    random,
    profile.companies,
    options.enterprises,
    options.chainPerEnterprise ?? false,
  );
  const model = new SimModel(world, options.clock, random);
  const now = options.seededAtMs ?? options.clock.now();
  const start = now - DATASET_HISTORY_MS;
  const chainId = world.chainId;
  const chainMeta = (createdMs: number, updatedMs = createdMs, chain = chainId): EntryMeta => ({
    enterpriseId: null,
    chainId: chain,
    createdMs,
    updatedMs,
  });
  /** The chain of the i-th chain-level record: round the chains. */
  const chainAt = (i: number) => world.chainIds[i % world.chainIds.length]!;
  const enterpriseMeta = (
    enterpriseId: string,
    createdMs: number,
    updatedMs = createdMs,
  ): EntryMeta => ({
    enterpriseId,
    chainId: model.chainOf(enterpriseId),
    createdMs,
    updatedMs,
  });
  // Creation times spread evenly and monotonically over the history, so creation order
  // (the pagination order) agrees with CreatedUtc.
  const at = (index: number, count: number) =>
    start + Math.floor(((index + 1) / (count + 1)) * DATASET_HISTORY_MS);
  const laterUpdate = (createdMs: number) =>
    random.chance(0.3) ? createdMs + Math.floor(random.source() * (now - createdMs)) : createdMs;

  generateResources(model, profile.roomsPerEnterprise, start);
  for (const enterprise of world.enterprises) {
    for (const category of makeAccountingCategories(model, enterprise, start)) {
      model.accountingCategories.insert(category, enterpriseMeta(enterprise.Id, start));
    }
  }

  for (let i = 0; i < profile.customers; i += 1) {
    const createdMs = at(i, profile.customers);
    const updatedMs = laterUpdate(createdMs);
    const customer = makeCustomer(model, createdMs, 1000 + i, chainAt(i));
    const deleted = random.chance(0.02);
    const record = {
      ...customer,
      UpdatedUtc: iso(updatedMs),
      ...(deleted ? { IsActive: false, ActivityState: 'Deleted' } : {}),
    };
    const entry = model.customers.insert(record, chainMeta(createdMs, updatedMs, chainAt(i)));
    if (deleted) entry.deletedMs = updatedMs;
    if (record.Email) model.emailOwners.set(emailKey(entry.chainId, record.Email), record.Id);
  }
  const customerAt = (i: number) =>
    model.customers.at(Math.floor(random.source() * Math.max(1, i)))?.record.Id;
  // The same draw as customerAt, moved on to a guest of the hotel's own chain (the drawn one
  // when that chain has no guests: more hotels than customers).
  const customerOfChainAt = (i: number, chainId: string) => {
    const index = Math.floor(random.source() * Math.max(1, i));
    return model.customerOfChainFrom(index, chainId) ?? model.customers.at(index)?.record.Id;
  };

  for (let i = 0; i < profile.notes; i += 1) {
    const createdMs = at(i, profile.notes);
    const customerId = random.chance(0.85)
      ? (customerAt(model.customers.storedCount) ?? null)
      : null;
    const note = makeAccountNote(model, customerId);
    const deleted = random.chance(0.05);
    const updatedMs = laterUpdate(createdMs);
    const entry = model.accountNotes.insert(
      deleted ? { ...note, IsActive: false } : note,
      chainMeta(createdMs, updatedMs, customerId ? model.customerChain(customerId) : chainAt(i)),
    );
    if (deleted) entry.deletedMs = updatedMs;
  }

  // Every chain has its own two programs.
  const programsOf = new Map<string, string[]>();
  for (const chain of world.chainIds) {
    for (const [name, code] of [
      ['Sunrise Rewards', 'SUNRISE'],
      ['Business Club', 'BIZ'],
    ] as const) {
      const program = {
        Id: random.uuid(),
        ChainId: chain,
        Name: name,
        Code: code,
        Type: 'Points',
        Subscription: 'Free',
      };
      model.loyaltyPrograms.insert(program, chainMeta(start, start, chain));
      programsOf.set(chain, [...(programsOf.get(chain) ?? []), program.Id]);
    }
  }
  for (let i = 0; i < profile.memberships; i += 1) {
    const createdMs = at(i, profile.memberships);
    const customerId = customerAt(model.customers.storedCount)!;
    const chain = model.customerChain(customerId);
    const programId = random.pick(programsOf.get(chain)!);
    const membership = makeLoyaltyMembership(model, customerId, programId, now, chain);
    const updatedMs = laterUpdate(createdMs);
    const entry = model.loyaltyMemberships.insert(
      membership,
      chainMeta(createdMs, updatedMs, chain),
    );
    if (random.chance(0.04)) entry.deletedMs = updatedMs;
  }

  const states = ['Pending', 'Completed', 'Canceled', 'Expired'] as const;
  for (let i = 0; i < profile.paymentRequests; i += 1) {
    const createdMs = at(i, profile.paymentRequests);
    const enterpriseIndex = i % world.enterprises.length;
    const request = makePaymentRequest(
      model,
      enterpriseIndex,
      customerOfChainAt(model.customers.storedCount, world.enterprises[enterpriseIndex]!.ChainId)!,
      states[i % 4]!,
      createdMs,
    );
    const updatedMs = laterUpdate(createdMs);
    model.paymentRequests.insert(
      { ...request, UpdatedUtc: iso(updatedMs) },
      enterpriseMeta(request.EnterpriseId, createdMs, updatedMs),
    );
  }

  for (let i = 0; i < profile.reservationGroups; i += 1) {
    const createdMs = at(i, profile.reservationGroups);
    const group = makeReservationGroup(model, i % world.enterprises.length);
    model.reservationGroups.insert(
      group,
      enterpriseMeta(group.EnterpriseId, createdMs, laterUpdate(createdMs)),
    );
  }
  generateReservations(model, Math.min(profile.reservationGroups, 2000), now);
  linkPaymentRequests(model);

  const accountingOf = accountingByEnterprise(model);
  for (const enterprise of world.enterprises) {
    const accountingIds = (accountingOf.get(enterprise.Id) ?? []).map((entry) => entry.record.Id);
    seedMany(
      model.billingAutomations,
      profile.billingAutomationsPerEnterprise,
      (createdMs) => makeBillingAutomation(model, enterprise, accountingIds, createdMs),
      enterprise.Id,
      enterprise.ChainId,
      start,
      now,
    );
    const roots: ProductCategory[] = [];
    seedMany(
      model.productCategories,
      profile.productCategoriesPerEnterprise,
      (createdMs) => {
        const parent = roots.length > 0 && random.chance(0.4) ? random.pick(roots) : null;
        const category = makeProductCategory(model, enterprise, parent, createdMs);
        if (!parent) roots.push(category);
        return category;
      },
      enterprise.Id,
      enterprise.ChainId,
      start,
      now,
    );
    seedMany(
      model.routingRules,
      profile.routingRulesPerEnterprise,
      (createdMs) => makeRoutingRule(model, enterprise, createdMs),
      enterprise.Id,
      enterprise.ChainId,
      start,
      now,
    );
    for (const service of enterprise.services) {
      model.vouchers.insert(
        makeVoucher(model, service.Id, start),
        enterpriseMeta(enterprise.Id, start),
      );
      for (const origin of ['Api', 'User'] as const) {
        model.restrictions.push({
          Id: random.uuid(),
          ServiceId: service.Id,
          origin,
          conditions: { Type: 'Stay', ExactRateId: service.rateIds[0], Days: allDays() },
          StartUtc: iso(now + 10 * DAY_MS),
          EndUtc: iso(now + 20 * DAY_MS),
        });
      }
    }
  }

  // Exports at every stage of their lifecycle: created 1 hour, 1 minute, 15 s and 2 s ago.
  for (const ageMs of [3_600_000, 60_000, 15_000, 2_000]) {
    const createdMs = now - ageMs;
    const record = exportAsOf(makeExport(model), createdMs, now);
    model.exports.insert(record, enterpriseMeta(world.enterprises[0]!.Id, createdMs));
    if (record.Status !== 'Expired') model.exportTimeline.set(record.Id, createdMs);
  }

  for (const environment of taxEnvironments(start)) {
    model.taxEnvironments.insert(environment, chainMeta(start));
  }
  seedTaxationsAndRates(model);
  // Generated enterprise by enterprise: pages are newest first across all of them.
  model.orderByCreation();
  if (options.activitySeed !== undefined) stream.switchTo(seededRandom(options.activitySeed));
  return model;
}

function seedMany<T>(
  set: EntitySet<T>,
  count: number,
  make: (createdMs: number) => T,
  enterpriseId: string,
  chainId: string,
  start: number,
  now: number,
): void {
  for (let i = 0; i < count; i += 1) {
    const createdMs = start + Math.floor(((i + 1) / (count + 1)) * (now - start));
    set.insert(make(createdMs), { enterpriseId, chainId, createdMs, updatedMs: createdMs });
  }
}

/** Every weekday on: the Days object of a restriction condition. */
export function allDays(): Record<string, boolean> {
  return {
    Monday: true,
    Tuesday: true,
    Wednesday: true,
    Thursday: true,
    Friday: true,
    Saturday: true,
    Sunday: true,
  };
}

/** One taxation and one standard rate per taxation code the seeded environments use. */
function seedTaxationsAndRates(model: SimModel): void {
  const environments = [...model.taxEnvironments.all()].map((entry) => entry.record);
  const codes = [...new Set(environments.flatMap((environment) => environment.TaxationCodes))];
  for (const [index, code] of codes.entries()) {
    model.taxations.push({ Code: code, Name: `${code} taxation` });
    model.taxRates.push({
      Code: `${code}-S`,
      TaxationCode: code,
      Strategy:
        index % 3 === 2
          ? { Discriminator: 'Flat', Value: 2 }
          : { Discriminator: 'Relative', Value: 0.1 + index / 100 },
    });
  }
}

function taxEnvironments(start: number): TaxEnvironment[] {
  return [
    {
      Code: 'CZ',
      CountryCode: 'CZE',
      TaxationCodes: ['CZ-VAT'],
      ValidityStartUtc: '2024-01-01T00:00:00Z',
      ValidityEndUtc: null,
    },
    {
      Code: 'UK',
      CountryCode: 'GBR',
      TaxationCodes: ['UK-VAT'],
      ValidityStartUtc: null,
      ValidityEndUtc: null,
    },
    {
      Code: 'AT',
      CountryCode: 'AUT',
      TaxationCodes: ['AT-VAT', 'AT-CT'],
      ValidityStartUtc: null,
      ValidityEndUtc: null,
    },
    {
      Code: 'DE-2020',
      CountryCode: 'DEU',
      TaxationCodes: ['DE-VAT'],
      ValidityStartUtc: '2020-07-01T00:00:00Z',
      ValidityEndUtc: '2020-12-31T23:00:00Z',
    },
    {
      Code: 'DE',
      CountryCode: 'DEU',
      TaxationCodes: ['DE-VAT'],
      ValidityStartUtc: iso(start - 900 * DAY_MS),
      ValidityEndUtc: null,
    },
  ];
}
