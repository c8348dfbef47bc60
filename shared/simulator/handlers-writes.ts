import { RestrictionsClearRequestSchema } from '../connector/operations/restrictions-clear.ts';
import { RoutingRulesUpdateRequestSchema } from '../connector/operations/routing-rules-update.ts';
import { VouchersAddRequestSchema } from '../connector/operations/vouchers-add.ts';
import type { RoutingRule, Voucher } from '../connector/records/index.ts';
import type { SimContext } from './context.ts';
import { requireEnterprise } from './context.ts';
import type { SimRestriction } from './model.ts';
import { SimApiError } from './query.ts';
import { iso } from './sim-random.ts';

/**
 * routingRules/update: applies `{Value}` updates in order; SelectedStayItems exists only for
 * that RouteType. Each returned rule is its final state, also for a rule named twice.
 * @throws SimApiError 400 naming the field for a rule, company or service (of the rule's
 * enterprise) that does not exist; nothing is updated then.
 */
export function routingRulesUpdate(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = RoutingRulesUpdateRequestSchema.parse(raw);
  const model = ctx.model;
  // Every identifier is checked before any update applies, so a refused request changes nothing.
  body.RoutingRuleUpdates.forEach((update, index) => {
    const entry = model.routingRules.get(update.RoutingRuleId);
    if (!entry || !ctx.scope.enterpriseIds.includes(entry.enterpriseId ?? '')) {
      throw new SimApiError(
        400,
        `RoutingRuleUpdates[${index}].RoutingRuleId: no such routing rule`,
      );
    }
    if (update.CompanyId && !model.hasCompany(update.CompanyId.Value)) {
      throw new SimApiError(400, `RoutingRuleUpdates[${index}].CompanyId: no such company`);
    }
    if (
      update.ServiceId &&
      model.enterpriseOfService(update.ServiceId.Value) !== entry.enterpriseId
    ) {
      throw new SimApiError(
        400,
        `RoutingRuleUpdates[${index}].ServiceId: no such service in the enterprise`,
      );
    }
  });
  for (const update of body.RoutingRuleUpdates) {
    const current = model.routingRules.get(update.RoutingRuleId)!.record;
    const patch: Partial<RoutingRule> = {};
    if (update.CompanyId) patch.CompanyId = update.CompanyId.Value;
    if (update.ServiceId) patch.ServiceId = update.ServiceId.Value;
    if (update.CompanyRelation) patch.CompanyRelation = update.CompanyRelation.Value;
    if (update.Applicability) patch.Applicability = update.Applicability.Value;
    if (update.RouteType) patch.RouteType = update.RouteType.Value;
    const routeType = patch.RouteType ?? current.RouteType;
    if (routeType === 'SelectedStayItems') {
      const before = current.SelectedStayItems ?? {
        Nights: false,
        CityTax: false,
        ProductCategoryIds: null,
      };
      const selected = update.SelectedStayItems;
      patch.SelectedStayItems = {
        Nights: selected?.Nights ? selected.Nights.Value : before.Nights,
        CityTax: selected?.CityTax ? selected.CityTax.Value : before.CityTax,
        ProductCategoryIds: selected?.ProductCategoryIds
          ? selected.ProductCategoryIds.Value
          : (before.ProductCategoryIds ?? null),
      };
      model.update(model.routingRules, 'routingRule', current.Id, patch);
    } else {
      model.update(model.routingRules, 'routingRule', current.Id, patch);
      // "returned only when RouteType is SelectedStayItems" (connector-api.md, Routing rule).
      const entry = model.routingRules.get(current.Id)!;
      const { SelectedStayItems: _dropped, ...rest } = entry.record;
      entry.record = rest;
    }
  }
  // Updates apply in order; a rule named twice is returned as the request leaves it, in each
  // element that names it (an element read before a later update would show a stale rule).
  const rules: RoutingRule[] = body.RoutingRuleUpdates.map(
    (update) => model.routingRules.get(update.RoutingRuleId)!.record,
  );
  return { RoutingRules: rules, Cursor: rules.at(-1)?.Id ?? null };
}

/**
 * vouchers/add: adds vouchers to services of the enterprise; a public voucher has no company,
 * another one names a company that exists.
 */
export function vouchersAdd(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = VouchersAddRequestSchema.parse(raw);
  const model = ctx.model;
  const enterprise = requireEnterprise(ctx, body.EnterpriseId, 'EnterpriseId');
  body.VoucherParameters.forEach((item, index) => {
    if (!enterprise.services.some((service) => service.Id === item.ServiceId)) {
      throw new SimApiError(
        400,
        `VoucherParameters[${index}].ServiceId: no such service in the enterprise`,
      );
    }
    if (item.Type === 'Public' && item.CompanyId) {
      throw new SimApiError(
        403,
        `VoucherParameters[${index}].CompanyId: must be null for a public voucher`,
      );
    }
    if (item.Type !== 'Public' && !item.CompanyId) {
      throw new SimApiError(
        403,
        `VoucherParameters[${index}].CompanyId: required for a ${item.Type} voucher`,
      );
    }
    // An identifier that names nothing is a client error, as for ServiceId.
    if (item.CompanyId && !model.hasCompany(item.CompanyId)) {
      throw new SimApiError(400, `VoucherParameters[${index}].CompanyId: no such company`);
    }
  });
  const now = model.clock.now();
  const vouchers: Voucher[] = body.VoucherParameters.map((item) => {
    const voucher: Voucher = {
      Id: model.random.uuid(),
      ServiceId: item.ServiceId,
      Name: item.Name,
      CreatedUtc: iso(now),
      UpdatedUtc: iso(now),
      Type: item.Type,
      ActivityState: 'Active',
      CompanyId: item.CompanyId ?? null,
      TravelAgencyId: item.Type === 'TravelAgency' ? (item.CompanyId ?? null) : null,
      OccupiableIntervalStartUtc: item.OccupiableIntervalStartUtc ?? null,
      OccupiableIntervalEndUtc: item.OccupiableIntervalEndUtc ?? null,
      ExternalIdentifier: item.ExternalIdentifier ?? null,
    };
    model.create(model.vouchers, 'voucher', voucher, {
      enterpriseId: enterprise.Id,
      chainId: enterprise.ChainId,
      createdMs: now,
      updatedMs: now,
    });
    return voucher;
  });
  return { Vouchers: vouchers };
}

function conditionKey(condition: Record<string, unknown>): string {
  return JSON.stringify([
    condition.Type ?? null,
    condition.ExactRateId ?? null,
    condition.BaseRateId ?? null,
    condition.ResourceCategoryId ?? null,
    condition.Days ?? null,
  ]);
}

/**
 * restrictions/clear: for each condition, the API-created restrictions of the service with
 * exactly that condition lose the overlap with [StartUtc, EndUtc); a restriction that
 * straddles the interval is split in two (rule 1). User-created ones are untouched (rule 2).
 */
export function restrictionsClear(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = RestrictionsClearRequestSchema.parse(raw);
  const model = ctx.model;
  const enterpriseId = model.enterpriseOfService(body.ServiceId);
  if (!enterpriseId || !ctx.scope.enterpriseIds.includes(enterpriseId)) {
    throw new SimApiError(400, 'ServiceId: no such service');
  }
  const now = model.clock.now();
  for (const { StartUtc, EndUtc, ...condition } of body.Data) {
    const key = conditionKey(condition);
    const from = StartUtc ? Date.parse(StartUtc) : Number.NEGATIVE_INFINITY;
    const to = EndUtc ? Date.parse(EndUtc) : Number.POSITIVE_INFINITY;
    for (const restriction of [...model.restrictions]) {
      if (restriction.ServiceId !== body.ServiceId || restriction.origin !== 'Api') continue;
      if (conditionKey(restriction.conditions) !== key) continue;
      const start = Date.parse(restriction.StartUtc);
      const end = Date.parse(restriction.EndUtc);
      if (end <= from || start >= to) continue;
      const pieces: SimRestriction[] = [];
      if (start < from) pieces.push({ ...restriction, EndUtc: iso(from) });
      if (end > to) pieces.push({ ...restriction, Id: model.random.uuid(), StartUtc: iso(to) });
      model.restrictions.splice(model.restrictions.indexOf(restriction), 1, ...pieces);
      if (pieces.length === 0)
        model.journal.append(now, 'restriction', restriction.Id, 'hard-deleted');
      for (const piece of pieces) {
        const kind = piece.Id === restriction.Id ? 'updated' : 'created';
        model.journal.append(
          now,
          'restriction',
          piece.Id,
          kind,
          kind === 'updated' ? ['EndUtc'] : [],
        );
      }
    }
  }
  return {};
}
