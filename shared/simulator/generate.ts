import type { Clock, RandomSource } from '../clock.ts';
import { seededRandom } from '../clock.ts';
import { type DatasetSize, SIZES } from './dataset-sizes.ts';
import type { EntryMeta } from './entity-set.ts';
import { exportAsOf } from './export-lifecycle.ts';
import {
  makeAccountNote,
  makeCustomer,
  makeLoyaltyMembership,
  makePaymentRequest,
  makeReservationGroup,
} from './factories-guests.ts';
import { makeAccountingCategories, makeExport } from './factories-property.ts';
import { generateReservations, linkPaymentRequests } from './generate-reservations.ts';
import { generateResources } from './generate-resources.ts';
import { generateWorld } from './generate-world.ts';
import { emailKey, SimModel } from './model.ts';
import { seedEnterpriseRecords } from './seed-enterprise-records.ts';
import { seedTaxationsAndRates, taxEnvironments } from './seed-taxes.ts';
import { DAY_MS, iso, SimRandom, switchableRandom } from './sim-random.ts';

export { allDays } from './seed-enterprise-records.ts';
export type { DatasetSize };

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

  seedEnterpriseRecords(model, random, profile, start, now, enterpriseMeta);

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
