import { dayStartsBetween } from '../time-zone.ts';
import type { EntitySet, Entry } from './entity-set.ts';
import {
  makeAccountNote,
  makeCustomer,
  makeLoyaltyMembership,
  makePaymentRequest,
  makeReservationGroup,
} from './factories-guests.ts';
import { makeBillingAutomation, makeExport, makeProductCategory } from './factories-property.ts';
import { linkedReservation, paymentRequestLink, reservationsOf } from './generate-reservations.ts';
import { emailKey, type SimModel } from './model.ts';
import { priceKey } from './pricing.ts';
import { DAY_MS, iso } from './sim-random.ts';

/** One kind of mutation; false when it found nothing to act on. */
type Action = (model: SimModel) => boolean;

/** A random live entry of a set, or undefined when a few draws found none. */
function sample<T>(
  model: SimModel,
  set: EntitySet<T>,
  keep: (entry: Entry<T>) => boolean = () => true,
): Entry<T> | undefined {
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const entry = set.at(Math.floor(model.random.source() * set.storedCount));
    if (entry && keep(entry)) return entry;
  }
  return undefined;
}

const live = <T>(entry: Entry<T>) => entry.deletedMs === null;

/** A loyalty program of `chainId`: sampled as any when the world has one chain. */
function programOfChain(model: SimModel, chainId: string) {
  if (model.world.chainIds.length === 1) return sample(model, model.loyaltyPrograms);
  const programs = [...model.loyaltyPrograms.newestFirstWithin({ chainIds: [chainId] })];
  return programs.length > 0 ? model.random.pick(programs) : undefined;
}

/** Meta of a new record: an enterprise's (in its chain), or chain-level in `chainId`. */
function meta(model: SimModel, enterpriseId: string | null, chainId?: string) {
  const now = model.clock.now();
  const chain =
    enterpriseId === null ? (chainId ?? model.world.chainId) : model.chainOf(enterpriseId);
  return { enterpriseId, chainId: chain, createdMs: now, updatedMs: now };
}

const createCustomer: Action = (model) => {
  const now = model.clock.now();
  const chain = model.someChain();
  // Counted over every customer ever stored, so a Number stays unique when old ones are purged.
  const customer = makeCustomer(model, now, 1000 + model.customers.insertedCount, chain);
  model.create(model.customers, 'customer', customer, meta(model, null, chain));
  if (customer.Email) model.emailOwners.set(emailKey(chain, customer.Email), customer.Id);
  return true;
};

const updateCustomer: Action = (model) => {
  const entry = sample(model, model.customers, live);
  if (!entry) return false;
  const random = model.random;
  const patch = random.pick([
    { Phone: `+420 ${random.int(600, 799)} ${random.int(100, 999)} ${random.int(100, 999)}` },
    { Classifications: random.subset(['Returning', 'VeryImportant', 'Important'] as const, 2) },
    { Notes: random.pick(['Prefers high floor', 'Late check-in', 'Allergic to feathers']) },
    { Occupation: random.pick(['Engineer', 'Chef', 'Pilot', 'Doctor']) },
  ]);
  model.update(model.customers, 'customer', entry.record.Id, patch);
  return true;
};

const touchCustomer: Action = (model) => {
  const entry = sample(model, model.customers, live);
  if (!entry) return false;
  model.update(model.customers, 'customer', entry.record.Id, {});
  return true;
};

const ACTIONS: readonly [number, Action][] = [
  [12, createCustomer],
  [18, updateCustomer],
  [4, touchCustomer],
  [
    3,
    (model) =>
      softDelete(model, model.customers, 'customer', { IsActive: false, ActivityState: 'Deleted' }),
  ],
  [1, (model) => restoreCustomer(model)],
  [
    5,
    (model) => {
      const customer = sample(model, model.customers, live);
      model.create(
        model.accountNotes,
        'accountNote',
        makeAccountNote(model, customer?.record.Id ?? null),
        meta(model, null, customer?.chainId ?? model.someChain()),
      );
      return true;
    },
  ],
  [
    3,
    (model) => {
      const entry = sample(model, model.accountNotes, live);
      if (!entry) return false;
      model.update(model.accountNotes, 'accountNote', entry.record.Id, {
        Content: `${entry.record.Content} (updated)`.slice(0, 400),
      });
      return true;
    },
  ],
  [2, (model) => softDelete(model, model.accountNotes, 'accountNote', { IsActive: false })],
  [
    2,
    (model) => {
      const entry = sample(model, model.accountingCategories, live);
      if (!entry) return false;
      model.update(model.accountingCategories, 'accountingCategory', entry.record.Id, {
        CostCenterCode: `CC${model.random.int(1, 9)}`,
      });
      return true;
    },
  ],
  [
    1,
    (model) =>
      softDelete(model, model.accountingCategories, 'accountingCategory', { IsActive: false }),
  ],
  [
    1,
    (model) => {
      const enterprise = model.random.pick(model.world.enterprises);
      const accounting = [...model.accountingCategories.all()]
        .filter((e) => e.enterpriseId === enterprise.Id)
        .map((e) => e.record.Id);
      model.create(
        model.billingAutomations,
        'billingAutomation',
        makeBillingAutomation(model, enterprise, accounting, model.clock.now()),
        meta(model, enterprise.Id),
      );
      return true;
    },
  ],
  [
    1,
    (model) => {
      const entry = sample(model, model.billingAutomations);
      if (!entry) return false;
      model.update(model.billingAutomations, 'billingAutomation', entry.record.Id, {
        Name: `${entry.record.Name.replace(/ v\d+$/, '')} v${model.random.int(2, 9)}`,
      });
      return true;
    },
  ],
  [1, (model) => hardDelete(model, model.billingAutomations, 'billingAutomation')],
  [
    4,
    (model) => {
      const customer = sample(model, model.customers, live);
      const program = programOfChain(model, customer?.chainId ?? model.world.chainId);
      if (!customer || !program) return false;
      model.create(
        model.loyaltyMemberships,
        'loyaltyMembership',
        makeLoyaltyMembership(
          model,
          customer.record.Id,
          program.record.Id,
          model.clock.now(),
          customer.chainId,
        ),
        meta(model, null, customer.chainId),
      );
      return true;
    },
  ],
  [
    4,
    (model) => {
      const entry = sample(model, model.loyaltyMemberships, live);
      if (!entry) return false;
      model.update(model.loyaltyMemberships, 'loyaltyMembership', entry.record.Id, {
        Points: (entry.record.Points ?? 0) + model.random.int(10, 500),
      });
      return true;
    },
  ],
  [2, (model) => softDelete(model, model.loyaltyMemberships, 'loyaltyMembership', {})],
  [
    5,
    (model) => {
      const customer = sample(model, model.customers, live);
      if (!customer) return false;
      const enterprises = model.world.enterprises;
      const drawn = model.random.int(0, enterprises.length - 1);
      // A hotel of the guest's own chain (independent hotels share no guests).
      const index =
        enterprises[drawn]!.ChainId === customer.chainId
          ? drawn
          : Math.max(
              0,
              enterprises.findIndex((e) => e.ChainId === customer.chainId),
            );
      const made = makePaymentRequest(
        model,
        index,
        customer.record.Id,
        'Pending',
        model.clock.now(),
      );
      // A third of new requests pay for a reservation, like the generated ones.
      const reservation = linkedReservation(
        reservationsOf(model, made.EnterpriseId),
        model.paymentRequests.storedCount,
      );
      const request = reservation ? { ...made, ...paymentRequestLink(reservation) } : made;
      model.create(
        model.paymentRequests,
        'paymentRequest',
        request,
        meta(model, request.EnterpriseId),
      );
      return true;
    },
  ],
  [
    4,
    (model) => {
      const entry = sample(model, model.paymentRequests, (e) => e.record.State === 'Pending');
      if (!entry) return false;
      const State = model.random.pick(['Completed', 'Completed', 'Canceled', 'Expired'] as const);
      model.update(model.paymentRequests, 'paymentRequest', entry.record.Id, { State });
      return true;
    },
  ],
  [2, (model) => hardDelete(model, model.paymentRequests, 'paymentRequest')],
  [
    3,
    (model) => {
      const group = makeReservationGroup(
        model,
        model.random.int(0, model.world.enterprises.length - 1),
      );
      model.create(
        model.reservationGroups,
        'reservationGroup',
        group,
        meta(model, group.EnterpriseId),
      );
      return true;
    },
  ],
  [
    2,
    (model) => {
      const entry = sample(model, model.reservationGroups);
      if (!entry) return false;
      model.update(model.reservationGroups, 'reservationGroup', entry.record.Id, {
        Name: model.random.pick(['Smith wedding', 'Conference', 'Ski club']),
      });
      return true;
    },
  ],
  [2, (model) => hardDelete(model, model.reservationGroups, 'reservationGroup')],
  [
    1,
    (model) => {
      const enterprise = model.random.pick(model.world.enterprises);
      model.create(
        model.productCategories,
        'productCategory',
        makeProductCategory(model, enterprise, null, model.clock.now()),
        meta(model, enterprise.Id),
      );
      return true;
    },
  ],
  [
    1,
    (model) => {
      const entry = sample(model, model.productCategories);
      if (!entry) return false;
      model.update(model.productCategories, 'productCategory', entry.record.Id, {
        Ordering: model.random.int(0, 30),
      });
      return true;
    },
  ],
  [1, (model) => hardDelete(model, model.productCategories, 'productCategory')],
  [
    6,
    (model) => {
      const entry = sample(model, model.resources, (e) => e.record.IsActive);
      if (!entry) return false;
      model.update(model.resources, 'resource', entry.record.Id, {
        State: entry.record.State === 'Dirty' ? 'Clean' : 'Dirty',
      });
      return true;
    },
  ],
  [
    1,
    (model) =>
      softDelete(
        model,
        model.resources,
        'resource',
        { IsActive: false },
        (e) => e.record.ParentResourceId === null,
      ),
  ],
  [
    1,
    (model) => {
      const category = sample(model, model.resourceCategories);
      if (!category) return false;
      const created = iso(model.clock.now());
      const record = {
        Id: model.random.uuid(),
        IsActive: true,
        CategoryId: category.record.Id,
        ImageId: model.random.uuid(),
        CreatedUtc: created,
        UpdatedUtc: created,
      };
      model.create(
        model.resourceCategoryImageAssignments,
        'resourceCategoryImageAssignment',
        record,
        meta(model, category.enterpriseId),
      );
      return true;
    },
  ],
  [
    1,
    (model) =>
      softDelete(model, model.resourceCategoryImageAssignments, 'resourceCategoryImageAssignment', {
        IsActive: false,
      }),
  ],
  [3, changePrice],
  [
    1,
    (model) => {
      const enterprise = model.world.enterprises[0]!;
      const record = makeExport(model);
      model.create(model.exports, 'export', record, meta(model, enterprise.Id));
      model.exportTimeline.set(record.Id, model.clock.now());
      return true;
    },
  ],
];

/** Sum of the action weights. */
export const TOTAL_WEIGHT = ACTIONS.reduce((sum, [weight]) => sum + weight, 0);

/** The action a draw in [0, TOTAL_WEIGHT) lands on. */
export function pickAction(draw: number): (model: SimModel) => boolean {
  let remaining = draw;
  for (const [weight, action] of ACTIONS) {
    remaining -= weight;
    if (remaining < 0) return action;
  }
  return createCustomer;
}

function softDelete<T extends object>(
  model: SimModel,
  set: EntitySet<T>,
  type: Parameters<SimModel['softDelete']>[1],
  patch: Partial<T>,
  keep: (entry: Entry<T>) => boolean = () => true,
): boolean {
  const entry = sample(model, set, (e) => live(e) && keep(e));
  return entry ? model.softDelete(set, type, set.keyOf(entry.record), patch) : false;
}

function hardDelete<T>(
  model: SimModel,
  set: EntitySet<T>,
  type: Parameters<SimModel['hardDelete']>[1],
): boolean {
  const entry = sample(model, set);
  return entry ? model.hardDelete(set, type, set.keyOf(entry.record)) : false;
}

function restoreCustomer(model: SimModel): boolean {
  const entry = sample(model, model.customers, (e) => e.deletedMs !== null);
  return entry
    ? model.restore(model.customers, 'customer', entry.record.Id, {
        IsActive: true,
        ActivityState: 'Active',
      })
    : false;
}

function changePrice(model: SimModel): boolean {
  const product = model.random.pick(model.world.products);
  const enterprise = model.world.enterprises.find((e) => e.Id === product.EnterpriseId)!;
  const now = model.clock.now();
  const days = dayStartsBetween(now, now + 30 * DAY_MS, enterprise.timeZone);
  const day = model.random.pick(days.slice(1));
  const key = priceKey(product.Id, day);
  model.priceOverrides.set(key, {
    gross: Math.round(product.basePrice * (0.8 + model.random.source() * 0.5) * 100) / 100,
    updatedMs: now,
  });
  model.journal.append(now, 'productPrice', key, 'updated', ['BaseAmountPrice']);
  return true;
}
