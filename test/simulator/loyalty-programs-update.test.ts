import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.ts';

describe('loyaltyPrograms/update', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  // connector-api.md #8 neither refuses a program named twice nor says a returned program may
  // be an earlier state: each returned element is the program as the request leaves it, as
  // routingRules/update answers.
  it('returns the final state of a program named twice, in every element that names it', async () => {
    const model = h.sim.controls.model;
    const [program, other] = [...model.loyaltyPrograms.all()]
      .filter((e) => e.chainId === model.world.chainId)
      .map((e) => e.record);
    const updates = [
      { LoyaltyProgramId: program!.Id, Name: { Value: 'First name' } },
      { LoyaltyProgramId: other!.Id, Subscription: { Value: 'Paid' } },
      { LoyaltyProgramId: program!.Id, Type: { Value: 'Tiers' }, Name: { Value: 'Final name' } },
    ];
    const result = await h.client.loyaltyPrograms.update({ LoyaltyProgramUpdates: updates });
    const stored = model.loyaltyPrograms.get(program!.Id)!.record;
    expect(stored).toMatchObject({ Name: 'Final name', Type: 'Tiers' });
    expect(result.LoyaltyPrograms.map((p) => p.Id)).toEqual([program!.Id, other!.Id, program!.Id]);
    expect(result.LoyaltyPrograms[0]).toEqual(stored);
    expect(result.LoyaltyPrograms[2]).toEqual(stored);
    expect(result.LoyaltyPrograms[1]).toMatchObject({ Id: other!.Id, Subscription: 'Paid' });
  });
});
