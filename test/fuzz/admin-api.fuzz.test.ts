import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer } from '../../shared/admin/node-server.ts';
import { ADMIN_ROUTES } from '../../shared/admin/routes.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { jsonValue } from '../properties/json-arbitraries.ts';

/** Statuses a well-behaved API may answer to any input: success, or a client error. */
const ACCEPTABLE = new Set([200, 201, 202, 204, 400, 404, 405, 409, 413, 415]);

const bodyLike = fc.oneof(
  fc.constant(undefined),
  jsonValue,
  fc.record(
    {
      url: fc.oneof(fc.constant('http://127.0.0.1:9000/hook'), fc.webUrl(), fc.string(), jsonValue),
      events: fc.oneof(fc.constantFrom('customer.*', '*'), fc.array(fc.string()), jsonValue),
      description: fc.oneof(fc.string({ maxLength: 2_000 }), jsonValue),
      subscriptionId: fc.oneof(fc.string(), jsonValue),
      entities: fc.oneof(fc.constant(['customer']), fc.array(fc.string()), jsonValue),
      emit: fc.oneof(fc.boolean(), jsonValue),
      enabled: jsonValue,
    },
    { requiredKeys: [] },
  ),
);
const queryLike = fc.oneof(
  { arbitrary: fc.constant({}), weight: 3 },
  fc.dictionary(
    fc.constantFrom('limit', 'type', 'subscription', 'event', 'extra'),
    fc.oneof(fc.string(), fc.integer().map(String), fc.constant('-1'), fc.constant('1e309')),
    { maxKeys: 3 },
  ),
);

describe('admin API fuzz', () => {
  let harness: AdminHarness;
  let subscriptionId: string;

  beforeAll(async () => {
    harness = createAdminHarness();
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'http://127.0.0.1:9000/hook' },
    });
    subscriptionId = (created.body as { id: string }).id;
  });
  afterAll(() => harness.close());

  const seen = new Map<number, number>();
  it('answers any body and query on every route with success or a 4xx naming the field, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ADMIN_ROUTES),
        fc.oneof(fc.constant('existing'), fc.string({ minLength: 1, maxLength: 40 })),
        queryLike,
        bodyLike,
        async (route, idChoice, query, body) => {
          const id = idChoice === 'existing' ? subscriptionId : encodeURIComponent(idChoice);
          const path = route.path.replace('{id}', id);
          const response = await harness.call(route.method, path, { query, body });
          seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
          expect(
            ACCEPTABLE.has(response.status),
            `${route.method} ${path} → ${response.status}`,
          ).toBe(true);
          if (response.status === 400) {
            const answer = response.body as { error?: unknown; field?: unknown };
            expect(typeof answer.error).toBe('string');
            expect(typeof answer.field, JSON.stringify(answer)).toBe('string');
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(harness.errors).toEqual([]);
    // The run reached handlers, not only validation: some requests succeeded, some were refused.
    expect(seen.get(400)).toBeGreaterThan(0);
    expect((seen.get(200) ?? 0) + (seen.get(202) ?? 0)).toBeGreaterThan(0);
  });

  it('answers raw bytes (truncated JSON, wrong types, huge strings) over HTTP with a 4xx, never a 500 or a hang', async () => {
    const server = await startAdminServer({ port: 0, deps: harness.deps });
    try {
      const raw = fc.oneof(
        jsonValue.map((value) => JSON.stringify(value) ?? ''),
        jsonValue.map((value) => (JSON.stringify(value) ?? '').slice(0, -1)),
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 10_000, max: 2_000_000 }).map((size) => `{"url":"${'a'.repeat(size)}"}`),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/subscriptions', '/backfill', `/subscriptions/${subscriptionId}`),
          fc.constantFrom('POST', 'PATCH'),
          raw,
          async (path, method, body) => {
            const response = await fetch(`${server.url}${path}`, {
              method,
              headers: { 'content-type': 'application/json' },
              body,
              signal: AbortSignal.timeout(10_000),
            });
            await response.arrayBuffer();
            expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
            expect(response.status, `${method} ${path}`).toBeLessThan(500);
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      await server.close();
    }
    expect(harness.errors).toEqual([]);
  });
});
