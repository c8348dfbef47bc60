import {
  hardDelete,
  live,
  meta,
  sample,
  softDelete,
  type WeightedAction,
} from './activity-helpers.ts';
import { makeBillingAutomation } from './factories-property.ts';

/** Mutations of accounting categories and billing automations, with their weights. */
export const ACCOUNTING_ACTIONS: readonly WeightedAction[] = [
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
];
