import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

/** What the admin API answers: a subscription's id, or a refusal's error and field. */
interface Answer {
  id?: string;
  error?: string;
  field?: string;
}

/** Sends `method path` with a JSON body to the harness's admin API. */
async function request(method: string, path: string, body: unknown) {
  const response = await fetch(`${cli.server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

describe('a subscription URL with a #fragment (never sent over HTTP)', () => {
  it.each(['http://127.0.0.1:8/x#frag', 'http://127.0.0.1:8/x#'])(
    'subscriptions add --url %s exits 2 naming url, and stores nothing',
    async (url) => {
      const result = await cli.run(['subscriptions', 'add', '--url', url]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/url: .*fragment/);
      expect(await cli.harness.store.listSubscriptions()).toEqual([]);
    },
  );

  it('is answered 400 naming url by POST and PATCH /subscriptions', async () => {
    const post = await request('POST', '/subscriptions', { url: 'http://127.0.0.1:8/x#frag' });
    expect(post).toMatchObject({ status: 400, body: { field: 'url' } });
    expect(post.body.error).toContain('fragment');

    const created = await request('POST', '/subscriptions', { url: 'http://127.0.0.1:8/x' });
    expect(created.status).toBe(201);
    const patch = await request('PATCH', `/subscriptions/${created.body.id ?? ''}`, {
      url: 'http://127.0.0.1:8/y#frag',
    });
    expect(patch).toMatchObject({ status: 400, body: { field: 'url' } });
    expect(patch.body.error).toContain('fragment');
    expect((await cli.harness.store.getSubscription(created.body.id ?? ''))?.url).toBe(
      'http://127.0.0.1:8/x',
    );
  });
});
