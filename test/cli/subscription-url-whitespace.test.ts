import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

describe('a subscription URL with whitespace the URL parser would drop', () => {
  it.each([
    ' http://127.0.0.1:8/x',
    'http://127.0.0.1:8/x\n',
    'http://127.0.0.1:8/x\t',
    'http://127.0.0.1:8/a\nb',
  ])('subscriptions add --url %j exits 2 naming --url, and stores nothing', async (url) => {
    const result = await cli.run(['subscriptions', 'add', '--url', url, '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--url: must not hold spaces, tabs or line breaks around it');
    expect(await cli.harness.store.listSubscriptions()).toEqual([]);
  });

  it('is answered 400 naming url by PATCH /subscriptions/{id}, keeping the URL it had', async () => {
    const added = await cli.run([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:8/x',
      '--json',
    ]);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const response = await fetch(`${cli.server.url}/subscriptions/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:8/y ' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field: 'url' });
    expect((await cli.harness.store.getSubscription(id))?.url).toBe('http://127.0.0.1:8/x');
  });
});
