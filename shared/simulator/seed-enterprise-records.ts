import type { ProductCategory } from '../connector/records/index.ts';
import type { SizeProfile } from './dataset-sizes.ts';
import type { EntitySet, EntryMeta } from './entity-set.ts';
import {
  makeBillingAutomation,
  makeProductCategory,
  makeRoutingRule,
  makeVoucher,
} from './factories-property.ts';
import { accountingByEnterprise } from './generate-reservations.ts';
import type { SimModel } from './model.ts';
import { DAY_MS, iso, type SimRandom } from './sim-random.ts';

/**
 * Seeds each enterprise's billing automations, product categories, routing rules, vouchers and
 * restrictions, in that order (the draws from `random` follow it): created over `[start, now)`.
 * Needs the accounting categories and reservations seeded first.
 */
export function seedEnterpriseRecords(
  model: SimModel,
  random: SimRandom,
  profile: SizeProfile,
  start: number,
  now: number,
  enterpriseMeta: (enterpriseId: string, createdMs: number) => EntryMeta,
): void {
  const world = model.world;
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
