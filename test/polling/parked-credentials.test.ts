import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { PARKED_RETRY_MS, pollStream, staysParked } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

describe('a stream parked by an authorization error', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;
  let dynamo: Awaited<ReturnType<typeof startLocalDynamoDb>>;
  let store: DynamoDbStateStore;
  let requests = 0;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'small', clock, rateLimit: false });
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, 'parked-credentials');
    store = new DynamoDbStateStore({
      client: dynamo.client,
      tableName: 'parked-credentials',
      clock,
    });
  });
  afterAll(async () => {
    await dynamo?.close();
    await sim?.close();
  });

  /** The customer stream, its client sending `accessToken`, every request counted. */
  const streamWith = (accessToken: string) => {
    const stream = customerStream(sim, clock, store);
    const client = createConnectorClient(
      {
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock, onRequest: () => requests++ },
    );
    return { ...stream, deps: { ...stream.deps, client } };
  };

  it('asks nothing while its credentials stay those refused, and resumes from its watermark once they are fixed', async () => {
    const good = streamWith(sim.tokens.accessToken);
    expect(await pollStream(good.definition, good.deps, 'test')).toMatchObject({ kind: 'polled' });
    const synced = (await store.getStream(good.definition.streamId))!;
    expect(synced.watermark).not.toBeNull();

    // The token is revoked: the stream parks, its watermark kept.
    const revoked = streamWith('revoked-token');
    await clock.advance(2_000);
    expect(await pollStream(revoked.definition, revoked.deps, 'test')).toMatchObject({
      kind: 'failed',
      parked: true,
    });
    const parked = (await store.getStream(revoked.definition.streamId))!;
    expect(parked).toMatchObject({ parked: true, watermark: synced.watermark });
    expect(parked.parkedCredential).toBe(revoked.deps.client.credential);
    expect(parked.parkedCredential).not.toContain('revoked-token');

    // Still the refused token (say, a restart without a fix): skipped without a request,
    // looked at again at its next due time.
    await clock.advance(5_000);
    const before = requests;
    expect(await pollStream(revoked.definition, revoked.deps, 'test')).toMatchObject({
      kind: 'skipped',
      reason: 'parked',
    });
    expect(requests).toBe(before);
    const skipped = (await store.getStream(revoked.definition.streamId))!;
    expect(skipped.nextDueAt).toBeGreaterThan(clock.now());

    // Meanwhile a customer changed; the token is fixed (a restart with the right one).
    const model = sim.controls.model;
    const [customer] = [...model.customers.all()].filter((e) => e.record.IsActive !== false);
    model.update(model.customers, 'customer', customer!.record.Id, { Notes: 'while parked' });
    await clock.advance(2_000);
    const fixed = streamWith(sim.tokens.accessToken);
    expect(await pollStream(fixed.definition, fixed.deps, 'test')).toMatchObject({
      kind: 'polled',
    });
    expect(await store.getStream(fixed.definition.streamId)).toMatchObject({
      parked: false,
      parkedReason: null,
    });
    // The change made while it was parked is not lost.
    expect(fixed.deps.publisher.events.map((e) => [e.type, e.subject])).toContainEqual([
      'customer.updated',
      customer!.record.Id,
    ]);
  });

  it('stays parked for a client whose credentials are unknown, and is tried again for one parked before they were noted', () => {
    expect(staysParked({ parked: true, parkedCredential: 'a' }, 'a')).toBe(true);
    expect(staysParked({ parked: true, parkedCredential: 'a' }, 'b')).toBe(false);
    expect(staysParked({ parked: true, parkedCredential: 'a' }, undefined)).toBe(true);
    expect(staysParked({ parked: true }, 'a')).toBe(false);
    expect(staysParked({ parked: false }, 'a')).toBe(false);
  });
});

/**
 * A gate in front of the simulator: while `denied`, every request is answered with the
 * authorization error the service gives a token lacking the operation's permission; otherwise
 * the simulator answers it. The credentials sent are the same throughout.
 */
async function startPermissionGate(target: string) {
  const gate = { denied: false, requests: 0, close: async () => {}, url: '' };
  const server = createServer((request, response) => {
    gate.requests++;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (gate.denied) {
        response.writeHead(401, { 'content-type': 'application/json', 'request-id': 'gate' });
        response.end(
          JSON.stringify({ Message: 'The token has no permission.', RequestId: 'gate' }),
        );
        return;
      }
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method ?? 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'transfer-encoding') headers[name] = value;
      });
      response.writeHead(answer.status, headers);
      response.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gate.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gate.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return gate;
}

describe('a stream parked because its token lacks a permission, granted later', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;
  let dynamo: Awaited<ReturnType<typeof startLocalDynamoDb>>;
  let store: DynamoDbStateStore;
  let gate: Awaited<ReturnType<typeof startPermissionGate>>;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29, size: 'small', clock, rateLimit: false });
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, 'parked-permission');
    store = new DynamoDbStateStore({
      client: dynamo.client,
      tableName: 'parked-permission',
      clock,
    });
    gate = await startPermissionGate(sim.url);
  });
  afterAll(async () => {
    await gate?.close();
    await dynamo?.close();
    await sim?.close();
  });

  it('tries its refused credentials again every PARKED_RETRY_MS with one request, and resumes from its watermark once they are accepted', async () => {
    const stream = customerStream(sim, clock, store);
    const client = createConnectorClient(
      {
        baseUrl: gate.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock },
    );
    const { definition } = stream;
    const deps = { ...stream.deps, client };
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    const synced = (await store.getStream(definition.streamId))!;

    gate.denied = true;
    await clock.advance(2_000);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({
      kind: 'failed',
      parked: true,
    });
    const model = sim.controls.model;
    const [customer] = [...model.customers.all()].filter((e) => e.record.IsActive !== false);
    model.update(model.customers, 'customer', customer!.record.Id, { Notes: 'while parked' });

    // Before the retry is due: skipped without a request, as before.
    await clock.advance(5_000);
    gate.requests = 0;
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ reason: 'parked' });
    expect(gate.requests).toBe(0);

    // Still refused when the retry is due: one request, parked again, its watermark kept.
    await clock.advance(PARKED_RETRY_MS);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({
      kind: 'failed',
      parked: true,
    });
    expect(gate.requests).toBe(1);
    expect(await store.getStream(definition.streamId)).toMatchObject({
      parked: true,
      watermark: synced.watermark,
    });
    await clock.advance(5_000);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ reason: 'parked' });
    expect(gate.requests).toBe(1);

    // The permission is granted, the token unchanged: the next retry resumes the stream.
    gate.denied = false;
    await clock.advance(PARKED_RETRY_MS);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    expect(await store.getStream(definition.streamId)).toMatchObject({
      parked: false,
      parkedReason: null,
    });
    expect(deps.publisher.events.map((e) => [e.type, e.subject])).toContainEqual([
      'customer.updated',
      customer!.record.Id,
    ]);
    await client.close();
  });
});
