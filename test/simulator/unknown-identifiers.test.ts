import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// connector-api.md Errors: a client error is a "malformed request or invalid resource
// identifier"; an identifier that names nothing is a 400 naming the field, as elsewhere.
describe('identifiers that name nothing in customers/update and routingRules/update', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const UNKNOWN_ID = '3f6c2a1e-8b7d-4e5f-9a0b-1c2d3e4f5a6b';
  const model = () => h.sim.controls.model;
  const firstEnterprise = () => model().world.enterprises[0]!;
  const ruleOf = (enterpriseId: string) =>
    [...model().routingRules.all()].find((e) => e.enterpriseId === enterpriseId)!.record;
  const updateRule = (update: Record<string, unknown>) =>
    postRaw(h.sim, 'routingRules/update', { ...envelope(h.sim), RoutingRuleUpdates: [update] });
  const messageOf = (answer: { text: string }) => JSON.parse(answer.text).Message;

  it('customers/update answers 400 for a CompanyId that does not exist, changing nothing', async () => {
    const customer = [...model().customers.all()][0]!.record;
    const answer = await postRaw(h.sim, 'customers/update', {
      ...envelope(h.sim),
      CustomerId: customer.Id,
      FirstName: 'Changed',
      CompanyId: UNKNOWN_ID,
    });
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toBe('CompanyId: no such company');
    expect(model().customers.get(customer.Id)!.record).toEqual(customer);
  });

  it('customers/update sets a CompanyId that exists', async () => {
    const customer = [...model().customers.all()][1]!.record;
    const companyId = model().world.companyIds[0]!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      CompanyId: companyId,
    });
    expect(updated.CompanyId).toBe(companyId);
  });

  it('routingRules/update answers 400 for a CompanyId that does not exist, changing nothing', async () => {
    const rule = ruleOf(firstEnterprise().Id);
    const answer = await updateRule({ RoutingRuleId: rule.Id, CompanyId: { Value: UNKNOWN_ID } });
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toBe('RoutingRuleUpdates[0].CompanyId: no such company');
    expect(model().routingRules.get(rule.Id)!.record).toEqual(rule);
  });

  it('routingRules/update answers 400 for a ServiceId not of the rule enterprise, changing nothing', async () => {
    const rule = ruleOf(firstEnterprise().Id);
    const foreign = model().world.enterprises.find((e) => e.Id !== rule.EnterpriseId);
    for (const serviceId of [UNKNOWN_ID, ...(foreign ? [foreign.services[0]!.Id] : [])]) {
      const answer = await updateRule({ RoutingRuleId: rule.Id, ServiceId: { Value: serviceId } });
      expect(answer.status, serviceId).toBe(400);
      expect(messageOf(answer), serviceId).toBe(
        'RoutingRuleUpdates[0].ServiceId: no such service in the enterprise',
      );
    }
    expect(model().routingRules.get(rule.Id)!.record).toEqual(rule);
  });

  it('routingRules/update changes nothing when a later update names an unknown company', async () => {
    const rule = ruleOf(firstEnterprise().Id);
    const answer = await postRaw(h.sim, 'routingRules/update', {
      ...envelope(h.sim),
      RoutingRuleUpdates: [
        { RoutingRuleId: rule.Id, Applicability: { Value: 'Always' } },
        { RoutingRuleId: rule.Id, CompanyId: { Value: UNKNOWN_ID } },
      ],
    });
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toBe('RoutingRuleUpdates[1].CompanyId: no such company');
    expect(model().routingRules.get(rule.Id)!.record).toEqual(rule);
  });

  it('routingRules/update sets a CompanyId and a ServiceId that exist', async () => {
    const enterprise = firstEnterprise();
    const rule = ruleOf(enterprise.Id);
    const companyId = model().world.companyIds.at(-1)!;
    const serviceId = enterprise.services.at(-1)!.Id;
    const result = await h.client.routingRules.update({
      RoutingRuleUpdates: [
        {
          RoutingRuleId: rule.Id,
          CompanyId: { Value: companyId },
          ServiceId: { Value: serviceId },
        },
      ],
    });
    expect(result.RoutingRules[0]).toMatchObject({ CompanyId: companyId, ServiceId: serviceId });
  });
});
