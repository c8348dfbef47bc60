import { AccountingCategoriesGetAllRequestSchema } from '../connector/operations/accounting-categories-get-all.ts';
import { BillingAutomationsGetAllRequestSchema } from '../connector/operations/billing-automations-get-all.ts';
import { ProductCategoriesGetAllRequestSchema } from '../connector/operations/product-categories-get-all.ts';
import { ResourceCategoryImageAssignmentsGetAllRequestSchema } from '../connector/operations/resource-category-image-assignments-get-all.ts';
import { ResourcesGetAllRequestSchema } from '../connector/operations/resources-get-all.ts';
import type { SimContext } from './context.ts';
import type { Entry } from './entity-set.ts';
import {
  activityAllows,
  allowedEnterprises,
  cursorAfter,
  inInterval,
  matches,
  pageOf,
  setOf,
} from './query.ts';

/**
 * resources/getAll: resources newest first; inactive ones only with Extent.Inactive. Extents
 * add the deprecated entities associated with the returned resources, and only those.
 */
export function resourcesGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ResourcesGetAllRequestSchema.parse(raw);
  const model = ctx.model;
  const extent = body.Extent ?? {};
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const names = setOf(body.Names);
  const inactive = extent.Inactive ?? false;
  const page = pageOf(
    model.resources,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      (inactive || entry.record.IsActive) &&
      matches(names, entry.record.Name) &&
      inInterval(entry.createdMs, body.CreatedUtc) &&
      inInterval(entry.updatedMs, body.UpdatedUtc),
    body.ResourceIds,
    { enterpriseIds: enterprises },
  );
  const resourceIds = new Set(page.map((entry) => entry.record.Id));
  const visible = <T extends { IsActive: boolean }>(entry: Entry<T>) =>
    inactive || entry.record.IsActive;
  // An empty page (a quiet poll) has no assignments: no scan of every enterprise's ones.
  const assignmentsOf = <T extends { ResourceId: string; IsActive: boolean }>(
    set: Iterable<Entry<T>>,
  ) =>
    resourceIds.size === 0
      ? []
      : [...set]
          .filter((entry) => resourceIds.has(entry.record.ResourceId) && visible(entry))
          .map((entry) => entry.record);
  const categoryAssignments = assignmentsOf(model.resourceCategoryAssignments.all());
  const categoryIds = new Set(categoryAssignments.map((a) => a.CategoryId));
  const featureAssignments = assignmentsOf(model.resourceFeatureAssignments.all());
  const featureIds = new Set(featureAssignments.map((a) => a.FeatureId));
  const arrays = {
    // Like every extent, only a true one returns its entities (the contract gives no default).
    Resources: extent.Resources ? page.map((entry) => entry.record) : null,
    ResourceCategories: extent.ResourceCategories
      ? [...categoryIds].flatMap((id) => model.resourceCategories.get(id)?.record ?? [])
      : null,
    ResourceCategoryAssignments: extent.ResourceCategoryAssignments ? categoryAssignments : null,
    ResourceCategoryImageAssignments: extent.ResourceCategoryImageAssignments
      ? [...model.resourceCategoryImageAssignments.all()]
          .filter((entry) => categoryIds.has(entry.record.CategoryId) && visible(entry))
          .map((entry) => entry.record)
      : null,
    ResourceFeatures: extent.ResourceFeatures
      ? [...featureIds].flatMap((id) => model.resourceFeatures.get(id)?.record ?? [])
      : null,
    ResourceFeatureAssignments: extent.ResourceFeatureAssignments ? featureAssignments : null,
  };
  // Pagination rules 4 and 5: with any extent asked for, the page's Cursor goes on even when its
  // resources hold none of the asked entities, or a walk by them would end before older ones.
  const asked = Object.values(arrays).some((list) => list !== null);
  return { ...arrays, Cursor: cursorAfter(page, asked && page.length > 0) };
}

/** accountingCategories/getAll. */
export function accountingCategoriesGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = AccountingCategoriesGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const page = pageOf(
    ctx.model.accountingCategories,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      activityAllows(entry, body.ActivityStates) &&
      inInterval(entry.updatedMs, body.UpdatedUtc),
    body.AccountingCategoryIds,
    { enterpriseIds: enterprises },
  );
  return { AccountingCategories: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** billingAutomations/getAll: no time filter; deleted automations vanish. */
export function billingAutomationsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = BillingAutomationsGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const companies = setOf(body.CompanyIds);
  const page = pageOf(
    ctx.model.billingAutomations,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      (!companies || entry.record.CompaniesWithRelations.some((c) => companies.has(c.CompanyId))),
    body.BillingAutomationIds,
    { enterpriseIds: enterprises },
  );
  return { BillingAutomations: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** productCategories/getAll: deleted categories vanish. */
export function productCategoriesGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ProductCategoriesGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const services = setOf(body.ServiceIds);
  const page = pageOf(
    ctx.model.productCategories,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      matches(services, entry.record.ServiceId) &&
      inInterval(entry.updatedMs, body.UpdatedUtc),
    body.ProductCategoryIds,
    { enterpriseIds: enterprises },
  );
  return { ProductCategories: page.map((entry) => entry.record), Cursor: cursorAfter(page) };
}

/** resourceCategoryImageAssignments/getAll: soft-deleted ones only with ActivityStates Deleted. */
export function resourceCategoryImageAssignmentsGetAll(
  ctx: SimContext,
  raw: Record<string, unknown>,
): unknown {
  const body = ResourceCategoryImageAssignmentsGetAllRequestSchema.parse(raw);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  const categories = setOf(body.ResourceCategoryIds);
  const page = pageOf(
    ctx.model.resourceCategoryImageAssignments,
    body.Limitation,
    (entry) =>
      enterprises.has(entry.enterpriseId ?? '') &&
      matches(categories, entry.record.CategoryId) &&
      activityAllows(entry, body.ActivityStates) &&
      inInterval(entry.updatedMs, body.UpdatedUtc),
    body.ResourceCategoryImageAssignmentIds,
    { enterpriseIds: enterprises },
  );
  return {
    ResourceCategoryImageAssignments: page.map((entry) => entry.record),
    Cursor: cursorAfter(page),
  };
}
