import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { startTestReceiver, type TestReceiver } from '../e2e/webhook-receiver.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * A voucher names no enterprise (only its ServiceId), so its voucher.created took the
 * connection's scope: none for a Portfolio Access Token's connection, and a subscription scoped
 * to the hotel the voucher was added to never received it. With such a token the request's
 * EnterpriseId is required and checked by the connector against the token's scope: it is the
 * voucher's enterprise.
 */
describe('writes through a Portfolio Access Token connection: the scope of their events', () => {
  let sim: RunningSimulator;
  let running: InProcessBridge;
  let receiver: TestReceiver;
  const api = () => running.bridge.adminUrl;
  const hotel = (index: number) => sim.controls.model.world.enterprises[index]!;

  async function post(path: string, body: unknown) {
    const response = await fetch(`${api()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    sim = await startSimulator({ seed: 43, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    running = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer' }, 60_000);
  }, 30_000);
  afterAll(async () => {
    await running?.close();
    await receiver?.close();
    await sim?.close();
  });

  it('gives voucher.created the enterprise the request named, so a subscription scoped to that hotel receives it', async () => {
    const added = await post('/connections', {
      id: 'group',
      accessToken: sim.tokens.portfolioToken,
      entities: 'customer',
      portfolioScope: {
        chainIds: [hotel(0).ChainId],
        enterpriseIds: [hotel(0).Id, hotel(1).Id],
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const subscribed = await post('/subscriptions', {
      url: receiver.url,
      events: ['voucher.created'],
      scope: { enterpriseIds: [hotel(1).Id] },
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    receiver.setSecret(String(subscribed.body.secret));

    const written = await post('/api/connector/v1/vouchers/add?connectionId=group', {
      EnterpriseId: hotel(1).Id,
      VoucherParameters: [
        { ServiceId: hotel(1).services[0]!.Id, Name: 'GROUP-1', Type: 'Public', CompanyId: null },
      ],
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const voucher = (written.body.Vouchers as { Id: string }[])[0]!;
    await waitFor(
      () => receiver.received.find((event) => event.subject === voucher.Id),
      5_000,
      'the voucher.created of hotel 2 at the subscription scoped to hotel 2',
    );
    expect(receiver.rejected).toBe(0);
  }, 30_000);
});
