import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutingRule } from '../../shared/connector/records/index.ts';
import { type Harness, startHarness } from './harness.ts';

describe('routingRules/update', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const ruleOfFirstEnterprise = (skip = 0): RoutingRule => {
    const model = h.sim.controls.model;
    return [...model.routingRules.all()].filter(
      (e) => e.enterpriseId === model.world.enterprises[0]!.Id,
    )[skip]!.record;
  };

  // connector-api.md #15 neither refuses a rule named twice nor says a returned rule may be
  // an earlier state: each returned element is the rule as the request leaves it.
  it('returns the final state of a rule named twice, in every element that names it', async () => {
    const rule = ruleOfFirstEnterprise();
    const other = ruleOfFirstEnterprise(1);
    const result = await h.client.routingRules.update({
      RoutingRuleUpdates: [
        { RoutingRuleId: rule.Id, Applicability: { Value: 'Always' } },
        { RoutingRuleId: other.Id, CompanyRelation: { Value: 'TravelAgency' } },
        { RoutingRuleId: rule.Id, Applicability: { Value: 'PrepaidOnly' } },
      ],
    });
    const stored = h.sim.controls.model.routingRules.get(rule.Id)!.record;
    expect(stored.Applicability).toBe('PrepaidOnly');
    expect(result.RoutingRules.map((r) => r.Id)).toEqual([rule.Id, other.Id, rule.Id]);
    expect(result.RoutingRules[0]).toEqual(stored);
    expect(result.RoutingRules[2]).toEqual(stored);
    expect(result.RoutingRules[1]).toMatchObject({ Id: other.Id, CompanyRelation: 'TravelAgency' });
  });

  // customers/update journals a no-op as `touched` and moves UpdatedUtc (model.update), and
  // pollers treat UpdatedUtc as volatile (design.md): routing rules follow the same rule.
  it('moves UpdatedUtc on an update that changes nothing, as customers/update does', async () => {
    const rule = ruleOfFirstEnterprise(2);
    const model = h.sim.controls.model;
    // Writes through the API set the integration profile as updater: this one has it already.
    const customer = [...model.customers.all()].find(
      (e) => e.record.UpdaterProfileId === model.world.profileIds[0],
    )!.record;
    await h.clock.advance(60_000);
    const now = new Date(h.clock.now()).toISOString();
    const same = await h.client.routingRules.update({
      RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, RouteType: { Value: rule.RouteType } }],
    });
    const untouched = await h.client.customers.update({
      CustomerId: customer.Id,
      FirstName: customer.FirstName,
    });
    expect(same.RoutingRules[0]!.UpdatedUtc).toBe(now);
    expect(untouched.UpdatedUtc).toBe(now);
    const kinds = h.sim.controls
      .journal()
      .filter((e) => e.entityId === rule.Id || e.entityId === customer.Id)
      .map((e) => e.kind);
    expect(kinds).toEqual(['touched', 'touched']);
  });
});
