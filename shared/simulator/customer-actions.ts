import {
  type Action,
  live,
  meta,
  sample,
  softDelete,
  type WeightedAction,
} from './activity-helpers.ts';
import { makeAccountNote, makeCustomer } from './factories-guests.ts';
import { emailKey, type SimModel } from './model.ts';

/** Creates a customer of some chain, its email owned in that chain. */
export const createCustomer: Action = (model) => {
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

function restoreCustomer(model: SimModel): boolean {
  const entry = sample(model, model.customers, (e) => e.deletedMs !== null);
  return entry
    ? model.restore(model.customers, 'customer', entry.record.Id, {
        IsActive: true,
        ActivityState: 'Active',
      })
    : false;
}

/** Mutations of customers and their account notes, with their weights. */
export const CUSTOMER_ACTIONS: readonly WeightedAction[] = [
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
];
