import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoyaltyMembership } from '../../shared/connector/records/index.ts';
import { type Harness, startHarness } from './harness.ts';

/** The kind of profile data a membership's CreatorProfile holds. */
function profileKind(membership: LoyaltyMembership): string {
  const profile = membership.CreatorProfile;
  if (profile === null) return 'null';
  return profile.EnterpriseProfile === null
    ? `${profile.Discriminator} without EnterpriseProfile`
    : profile.Discriminator;
}

// connector-api.md, Loyalty membership: CreatorProfile and UpdaterProfile "may be null in
// responses"; Profile data: EnterpriseProfile is "null when the discriminator is Integration".
// The service sends both; a simulator that never does leaves the bridge untested against them.
describe('loyalty membership profiles', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('come as the service sends them: staff, an integration without EnterpriseProfile, or null', async () => {
    const kinds = new Map<string, number>();
    for await (const page of h.client.paginate('loyaltyMemberships/getAll', {
      Limitation: { Count: 1000 },
    })) {
      for (const membership of page.items) {
        const kind = profileKind(membership);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        // Written once by one profile: the updater is the creator.
        expect(membership.UpdaterProfile).toEqual(membership.CreatorProfile);
      }
    }
    expect([...kinds.keys()].sort()).toEqual([
      'Enterprise',
      'Integration without EnterpriseProfile',
      'null',
    ]);
  });
});
