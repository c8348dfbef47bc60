import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, onUnauthorized, storeToken } from '../../shared/admin/console/api.js';

const TOKEN = 'the-right-token';

/** The tab's sessionStorage, as api.js reaches it. */
const storage = new Map<string, string>();
/** The authorization header of every request the console sent. */
let sent: (string | undefined)[];

beforeEach(() => {
  storage.clear();
  sent = [];
  vi.stubGlobal('document', { baseURI: 'http://127.0.0.1:4000/' });
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => storage.set(key, value),
  });
  // An admin API behind BRIDGE_ADMIN_TOKEN: 401 for any other bearer token.
  vi.stubGlobal('fetch', async (_url: URL, init: { headers: Record<string, string> }) => {
    sent.push(init.headers.authorization);
    return init.headers.authorization === `Bearer ${TOKEN}`
      ? new Response(JSON.stringify({ streams: [] }), { status: 200 })
      : new Response(
          JSON.stringify({ error: 'the admin API needs its token (BRIDGE_ADMIN_TOKEN)' }),
          { status: 401 },
        );
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('console API calls behind the admin token', () => {
  it('asks again, saying why, when the API refuses the token entered, and reads with the next one', async () => {
    const entered = ['a-wrong-token', TOKEN];
    const asked: (string | undefined)[] = [];
    onUnauthorized(async (refused) => {
      asked.push(refused);
      storeToken(entered.shift() ?? '');
      return true;
    });

    await expect(api('GET', 'streams')).resolves.toEqual({ streams: [] });

    expect(sent).toEqual([undefined, 'Bearer a-wrong-token', `Bearer ${TOKEN}`]);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBeUndefined();
    expect(asked[1]).toMatch(/refused/);
  });

  it('gives up with the 401 once the operator cancels the prompt', async () => {
    onUnauthorized(async () => false);

    await expect(api('GET', 'streams')).rejects.toMatchObject({ status: 401 });
    expect(sent).toEqual([undefined]);
  });

  it("says API Gateway's own refusals by their message, not as the JSON they came in", async () => {
    // What API Gateway answers before the bridge is reached: `{"message": ...}`, not `{"error": ...}`.
    vi.stubGlobal(
      'fetch',
      async () => new Response(JSON.stringify({ message: 'Too Many Requests' }), { status: 429 }),
    );

    await expect(api('GET', 'streams')).rejects.toThrow(/^429: Too Many Requests$/);
  });
});
