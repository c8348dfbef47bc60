import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { pollStream, staysParked } from '../../shared/polling/poll-stream.ts';
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
