import { afterEach, describe, expect, it } from 'vitest';
import { streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

const REFUSED = 'authorization failed: 401 Unauthorized: Invalid AccessToken';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

describe('GET /connections/{id} of a connection whose token is refused', () => {
  it('says how many of its streams are parked, and the first one with its reason', async () => {
    harness = createAdminHarness();
    await harness.call('POST', '/connections', {
      body: { id: 'hotel-1', accessToken: 'bad-token', entities: 'customer,resource,accountNote' },
    });
    await harness.state.saveStream(
      streamState('hotel-1:resource', { parked: true, parkedReason: REFUSED }),
      0,
    );
    await harness.state.saveStream(
      streamState('hotel-1:customer', { parked: true, parkedReason: REFUSED }),
      0,
    );
    await harness.state.saveStream(streamState('hotel-1:accountNote'), 0);
    // Another connection's parked stream is not this one's.
    await harness.state.saveStream(
      streamState('hotel-10:customer', { parked: true, parkedReason: 'other' }),
      0,
    );

    const shown = await harness.call('GET', '/connections/hotel-1');

    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id: 'hotel-1',
      enabled: true,
      parkedStreams: {
        count: 2,
        total: 3,
        first: { streamId: 'hotel-1:customer', reason: REFUSED },
      },
    });
  });

  it('says none are parked for a connection polled well, and for the environment one', async () => {
    harness = createAdminHarness();
    await harness.call('POST', '/connections', { body: { id: 'hotel-2', accessToken: 'token' } });
    await harness.state.saveStream(streamState('hotel-2:customer'), 0);

    expect((await harness.call('GET', '/connections/hotel-2')).body).toMatchObject({
      parkedStreams: { count: 0, total: 1 },
    });
    expect((await harness.call('GET', '/connections/hotel-2')).body).not.toHaveProperty(
      'parkedStreams.first',
    );
    expect((await harness.call('GET', '/connections/main')).body).toMatchObject({
      origin: 'environment',
      parkedStreams: { count: 0, total: 0 },
    });
  });

  it('documents parkedStreams in the OpenAPI answer of getConnection', async () => {
    harness = createAdminHarness();
    const document = (await harness.call('GET', '/openapi.json')).body as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    const answer = document.paths['/connections/{id}']?.get.responses['200'] as {
      content: { 'application/json': { schema: { properties: Record<string, unknown> } } };
    };
    expect(answer.content['application/json'].schema.properties.parkedStreams).toMatchObject({
      type: 'object',
      properties: { count: { type: 'integer' }, total: { type: 'integer' } },
    });
  });
});
