import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

const TOKEN = 'hotel-access-token-7f2a';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

async function start(): Promise<{ harness: AdminHarness; server: AdminServer }> {
  harness = createAdminHarness();
  server = await startAdminServer({ port: 0, deps: harness.deps });
  return { harness, server };
}

/** POST /connections over HTTP: the status and the text of the answer. */
async function add(
  url: string,
  body: Record<string, unknown>,
): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/connections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) };
}

const HOTEL = {
  id: 'hotel-1',
  accessToken: TOKEN,
  entities: 'customer,resource',
  interval: '1m',
  initialSync: 'emit',
};

describe('POST /connections retried after the first add landed', () => {
  it('answers 200 with the stored connection, changing nothing and echoing no token', async () => {
    const { harness, server } = await start();
    const first = await add(server.url, HOTEL);
    expect(first.status).toBe(201);
    const storedBefore = await harness.connections.get('hotel-1');
    const changesBefore = harness.connectionChanges.count;
    await harness.clock.advance(60_000);

    const again = await add(server.url, { ...HOTEL, accessToken: `${TOKEN}\n` });

    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.text).not.toContain(TOKEN);
    expect(await harness.connections.get('hotel-1')).toEqual(storedBefore);
    expect(harness.connectionChanges.count).toBe(changesBefore);
  });

  it('answers the stored connection as it now is: disabled since stays disabled', async () => {
    const { harness, server } = await start();
    await add(server.url, HOTEL);
    await harness.call('POST', '/connections/hotel-1/disable');

    const again = await add(server.url, HOTEL);

    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: 'hotel-1', enabled: false });
    expect((await harness.connections.get('hotel-1'))?.enabled).toBe(false);
  });

  it('answers 409 saying the id is taken by a different definition, naming what differs', async () => {
    const { harness, server } = await start();
    await add(server.url, HOTEL);
    const storedBefore = await harness.connections.get('hotel-1');

    const cases: [Record<string, unknown>, string][] = [
      [{ accessToken: 'another-token' }, 'accessToken'],
      [{ interval: '2m' }, 'interval'],
      [{ entities: 'customer' }, 'entities'],
      [{ entities: 'resource,customer' }, 'entities'],
      [{ initialSync: undefined }, 'initialSync'],
      [{ productIds: '1a2b3c4d-0000-4000-8000-000000000001' }, 'productIds'],
    ];
    for (const [change, field] of cases) {
      const answer = await add(server.url, { ...HOTEL, ...change });
      expect(answer.status, field).toBe(409);
      expect(answer.json.error, field).toContain('taken by a different definition');
      expect(answer.json.error, field).toContain(field);
      expect(answer.text).not.toContain(TOKEN);
      expect(answer.text).not.toContain('another-token');
    }
    expect(await harness.connections.get('hotel-1')).toEqual(storedBefore);
  });

  it('still answers 409 for the id of the environment connection', async () => {
    const { server } = await start();
    const answer = await add(server.url, { id: 'main', accessToken: TOKEN });

    expect(answer.status).toBe(409);
    expect(answer.json.error).toContain('CONNECTOR_* variables');
  });

  it('documents the 200 of a retried add beside the 201 in the OpenAPI document', async () => {
    const { server } = await start();
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { post: { responses: Record<string, { description: string }> } }>;
    };
    const responses = document.paths['/connections']?.post.responses ?? {};

    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '201', '409']));
    expect(responses['200']?.description).toMatch(/same definition/);
    expect(responses['409']?.description).toMatch(/different definition/);
  });
});
