import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/**
 * A Limitation.Cursor must identify a record the token can read: one of another enterprise (or
 * chain) names nothing for it, the client error a cursor naming no record gets, rather than a
 * page that tells the caller the other hotel's record exists.
 */
describe('a Limitation.Cursor naming a record outside the token scope', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ chainPerEnterprise: true });
  });
  afterAll(async () => {
    await h.close();
  });

  it('is a 400 naming Limitation.Cursor, while one of its own records pages on', async () => {
    const model = h.sim.controls.model;
    const [own, other] = model.world.enterprises;
    const categoryOf = (enterpriseId: string) =>
      [...model.accountingCategories.all()].find((e) => e.enterpriseId === enterpriseId)!.record;
    const noteOf = (enterpriseId: string) =>
      [...model.accountNotes.all()].find((e) => e.chainId === model.chainOf(enterpriseId))!.record;
    const page = (operation: string, cursor: string) =>
      postRaw(h.sim, operation, {
        ...envelope(h.sim),
        Limitation: { Count: 3, Cursor: cursor },
      });
    for (const [operation, foreign, mine] of [
      ['accountingCategories/getAll', categoryOf(other!.Id).Id, categoryOf(own!.Id).Id],
      ['accountNotes/getAll', noteOf(other!.Id).Id, noteOf(own!.Id).Id],
    ] as const) {
      const refused = await page(operation, foreign);
      // Before, a 200 page of the token's own records older than the other hotel's.
      expect(refused.status, operation).toBe(400);
      expect(JSON.parse(refused.text).Message, operation).toContain('Limitation.Cursor');
      expect((await page(operation, mine)).status, operation).toBe(200);
    }
  });
});
