import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';

/*
 * `change-bridge start` with a connection added at run time (POST /connections): the connector
 * proxy writes through it when the call names it (`?connectionId=`), with its own AccessToken,
 * and no longer once it is disabled or removed.
 */
describe('writes through a connection added at run time', () => {
  let sim: RunningSimulator;
  let running: InProcessBridge;
  const api = () => running.bridge.adminUrl;

  beforeAll(async () => {
    // Independent hotels: each token sees only its own chain's customers.
    sim = await startSimulator({
      seed: 41,
      size: 'small',
      rateLimit: false,
      chainPerEnterprise: true,
    });
    running = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer' }, 60_000);
  }, 30_000);
  afterAll(async () => {
    await running?.close();
    await sim?.close();
  });

  const hotel = (index: number) => sim.controls.model.world.enterprises[index]!;
  /** A customer of the second hotel's own chain, which the first hotel's token cannot see. */
  const customerOfHotel2 = () =>
    [...sim.controls.model.customers.all()].find(
      (entry) => entry.record.ChainId === hotel(1).ChainId,
    )!.record;

  async function post(path: string, body: unknown) {
    const response = await fetch(`${api()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const update = (query: string, notes: string) =>
    post(`/api/connector/v1/customers/update${query}`, {
      CustomerId: customerOfHotel2().Id,
      Notes: notes,
    });
  /** The enterprises whose token sent customers/update (the pollers read beside them). */
  const enterprisesAsked = () =>
    sim.controls
      .requestLog()
      .filter((entry) => entry.operation === 'customers/update')
      .map((entry) => entry.enterpriseId);

  it('writes with the added connection’s token when the call names it, and never after it is disabled or removed', async () => {
    const added = await post('/connections', {
      id: 'hotel-2',
      accessToken: sim.tokens.accessToken.concat('-2'),
      entities: 'customer',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);

    sim.controls.clearRequestLog();
    const written = await update('?connectionId=hotel-2', 'through hotel-2');
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(customerOfHotel2().Notes).toBe('through hotel-2');
    expect(enterprisesAsked()).toEqual([hotel(1).Id]);

    // Without a connection named: the environment's (`local`), as before.
    sim.controls.clearRequestLog();
    const unnamed = await update('', 'through local');
    expect(unnamed.status).not.toBe(200);
    expect(enterprisesAsked()).toEqual([hotel(0).Id]);

    expect((await post('/connections/hotel-2/disable', {})).status).toBe(200);
    sim.controls.clearRequestLog();
    const disabled = await update('?connectionId=hotel-2', 'while disabled');
    expect(disabled.status).toBe(409);
    expect(disabled.body.error).toMatch(/hotel-2 is disabled/);

    expect((await post('/connections/hotel-2/enable', {})).status).toBe(200);
    const removed = await fetch(`${api()}/connections/hotel-2`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    const gone = await update('?connectionId=hotel-2', 'after removal');
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatch(/hotel-2/);
    expect(enterprisesAsked()).toEqual([]);
    expect(customerOfHotel2().Notes).toBe('through hotel-2');

    const unknown = await update('?connectionId=nowhere', 'unknown');
    expect(unknown.status).toBe(404);
  }, 30_000);

  it('refuses a credential in the body naming what the named connection’s credentials come from', async () => {
    const added = await post('/connections', {
      id: 'hotel-3',
      accessToken: sim.tokens.accessToken.concat('-3'),
      entities: 'customer',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const path = '/api/connector/v1/taxEnvironments/getAll';
    const stored = await post(`${path}?connectionId=hotel-3`, { AccessToken: 'x' });
    expect(stored).toMatchObject({ status: 400, body: { field: 'AccessToken' } });
    expect(stored.body.error).toContain(
      'ClientToken, AccessToken and Client are added from connection hotel-3 (its AccessToken as `connections add` stored it',
    );
    // Its AccessToken is no CONNECTOR_* variable's.
    expect(stored.body.error).not.toContain('CONNECTOR_*');
    const environment = await post(path, { AccessToken: 'x' });
    expect(environment.body.error).toContain(
      'ClientToken, AccessToken and Client are added from connection local (the CONNECTOR_* variables)',
    );
  });
});
