import { afterEach, describe, expect, it } from 'vitest';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

const TOKEN = 'hotel-access-token-51f3';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

function add(fields: Record<string, unknown>) {
  return harness.call('POST', '/connections', {
    body: { id: 'hotel-1', accessToken: TOKEN, entities: 'customer', ...fields },
  });
}

async function openedToken(id: string): Promise<string> {
  const stored = await harness.connections.get(id);
  return harness.deps.connections!.cipher.open(id, stored!.accessToken);
}

describe('POST /connections: the AccessToken', () => {
  it('stores an AccessToken without the whitespace around it (a paste with its line breaks)', async () => {
    harness = createAdminHarness();
    const pasted = [`${TOKEN}\n\n`, `  ${TOKEN} \r\n`, `\t${TOKEN}\n`];
    for (const [index, accessToken] of pasted.entries()) {
      const answer = await add({ id: `hotel-${index}`, accessToken });
      expect(answer.status).toBe(201);
      expect(await openedToken(`hotel-${index}`)).toBe(TOKEN);
    }
  });

  it('refuses an AccessToken with a line break, space or control character inside, or not UTF-8, naming accessToken', async () => {
    harness = createAdminHarness();
    const wrong = [
      `${TOKEN}\nsecond-line`,
      `${TOKEN}\r\n${TOKEN}`,
      `${TOKEN} ${TOKEN}`,
      `${TOKEN}\u0000x`,
      `${TOKEN}\u0001`,
      // A UTF-16 file read as UTF-8: its bytes that are no UTF-8 become U+FFFD.
      `\uFFFD\uFFFD${TOKEN}`,
    ];
    for (const accessToken of wrong) {
      const answer = await add({ accessToken });
      expect(answer.status, JSON.stringify(accessToken)).toBe(400);
      expect(answer.body).toMatchObject({ field: 'accessToken' });
      expect(JSON.stringify(answer.body)).not.toContain(TOKEN);
    }
    expect(await harness.connections.get('hotel-1')).toBeUndefined();
  });

  it('refuses an AccessToken of whitespace only, naming accessToken', async () => {
    harness = createAdminHarness();
    const answer = await add({ accessToken: ' \n\t ' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field: 'accessToken' });
    expect(await harness.connections.get('hotel-1')).toBeUndefined();
  });
});
