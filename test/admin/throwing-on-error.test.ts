import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

const throwingOnError = () => {
  throw new TypeError('the error reporter failed');
};

/** Lets a rejection nobody handles reach `unhandledRejection` (reported after a macrotask). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

// Before, the 500 went out but the reporter's own throw was an unhandled rejection: under
// Node's defaults (--unhandled-rejections=throw) it ended `start`.
describe('an onError that throws', () => {
  it('does not escape the admin server when an answer cannot be sent; the 500 goes out and it keeps serving', async () => {
    process.on('unhandledRejection', onUnhandled);
    harness = createAdminHarness();
    // JSON.parse takes nesting this deep; JSON.stringify overflows the stack on it.
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    server = await startAdminServer({
      port: 0,
      deps: {
        ...harness.deps,
        onError: throwingOnError,
        writeThrough: {
          forward: async () => ({ status: 200, body: deep, headers: {}, events: 0 }),
          close: async () => {},
        },
      },
    });
    const answer = await fetch(`${server.url}/api/connector/v1/taxEnvironments/getAll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(5000),
    });
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ error: 'internal error' });
    await settle();
    expect(unhandled).toEqual([]);
    const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
  });

  it('does not make the router throw: a failing route is still its 500', async () => {
    harness = createAdminHarness();
    const deps = {
      ...harness.deps,
      authentication: 'none' as const,
      onError: throwingOnError,
      writeThrough: {
        forward: async () => {
          throw new RangeError('the route failed');
        },
        close: async () => {},
      },
    };
    await expect(
      handleAdminRequest(
        { method: 'POST', path: '/api/connector/v1/taxEnvironments/getAll', query: {}, body: {} },
        deps,
      ),
    ).resolves.toEqual({ status: 500, body: { error: 'internal error' } });
  });
});
