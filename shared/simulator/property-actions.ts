import { dayStartsBetween } from '../time-zone.ts';
import { hardDelete, meta, sample, softDelete, type WeightedAction } from './activity-helpers.ts';
import { makeExport, makeProductCategory } from './factories-property.ts';
import type { SimModel } from './model.ts';
import { priceKey } from './pricing.ts';
import { DAY_MS, iso } from './sim-random.ts';

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

/** Mutations of product categories, resources, image assignments, prices and exports, with their weights. */
export const PROPERTY_ACTIONS: readonly WeightedAction[] = [
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
