import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  type Harness,
  interval,
  postRaw,
  startHarness,
  TEST_START_MS,
} from './harness.ts';

type Page = Record<string, unknown[] | null> & { Cursor: string | null };

/**
 * Pagination rules 2, 4 and 5: a client walks pages until the Cursor is null. Asked for an extent
 * other than the primary records (customers' Documents, a resource's deprecated entities), a page
 * whose records have none of them still returns its Cursor, or the walk ends before the older
 * records that do have them.
 */
describe('a walk by a secondary extent reaches every page', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function walk(operation: string, body: Record<string, unknown>, key: string) {
    const collected: unknown[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 1000; pages += 1) {
      const answer = await postRaw(h.sim, operation, {
        ...envelope(h.sim),
        ...body,
        Limitation: { Count: 1, Cursor: cursor },
      });
      expect(answer.status).toBe(200);
      const page = JSON.parse(answer.text) as Page;
      collected.push(...(page[key] ?? []));
      cursor = page.Cursor;
      if (cursor === null) break;
    }
    return collected;
  }

  async function whole(operation: string, body: Record<string, unknown>, key: string) {
    const answer = await postRaw(h.sim, operation, {
      ...envelope(h.sim),
      ...body,
      Limitation: { Count: 1000 },
    });
    return (JSON.parse(answer.text) as Page)[key] ?? [];
  }

  it('customers/getAll with only Documents returns every document page by page', async () => {
    const body = {
      Extent: { Documents: true },
      UpdatedUtc: interval(TEST_START_MS - 80 * 86_400_000, TEST_START_MS + 1),
    };
    const all = await whole('customers/getAll', body, 'Documents');
    expect(all.length).toBeGreaterThan(1);
    // Before, the walk stopped at the first customer without documents (1 of 57 here).
    expect(await walk('customers/getAll', body, 'Documents')).toEqual(all);
  });

  it('resources/getAll with only ResourceFeatureAssignments returns every assignment page by page', async () => {
    const body = { Extent: { ResourceFeatureAssignments: true } };
    const all = await whole('resources/getAll', body, 'ResourceFeatureAssignments');
    expect(all.length).toBeGreaterThan(1);
    // Before, the first resource without a feature ended the walk (0 of 22 here).
    expect(new Set(await walk('resources/getAll', body, 'ResourceFeatureAssignments'))).toEqual(
      new Set(all),
    );
  });

  it("the client's walk by a secondary extent follows the Cursor to the last page: it cannot count records it did not ask for", async () => {
    const customersBody = {
      Extent: { Documents: true },
      UpdatedUtc: interval(TEST_START_MS - 80 * 86_400_000, TEST_START_MS + 1),
    };
    const documents = [];
    for await (const page of h.client.paginate('customers/getAll', {
      ...customersBody,
      Limitation: { Count: 2 },
    })) {
      documents.push(...(page.response.Documents ?? []));
    }
    expect(documents).toEqual(await whole('customers/getAll', customersBody, 'Documents'));

    const resourcesBody = { Extent: { ResourceFeatureAssignments: true } };
    const assignments = [];
    for await (const page of h.client.paginate('resources/getAll', {
      ...resourcesBody,
      Limitation: { Count: 2 },
    })) {
      assignments.push(...(page.response.ResourceFeatureAssignments ?? []));
    }
    expect(new Set(assignments.map((a) => a.Id))).toEqual(
      new Set(
        (await whole('resources/getAll', resourcesBody, 'ResourceFeatureAssignments')).map(
          (a) => (a as { Id: string }).Id,
        ),
      ),
    );
  });
});
