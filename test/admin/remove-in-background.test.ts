import { describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { purgeRemovedStreams } from '../../shared/polling/removed-streams.ts';
import type { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { useDynamoBridges } from './support/dynamo-bridge.ts';

/**
 * In AWS a `DELETE /connections/{id}` (without keepState) and a reset of a stream whose
 * connection is gone deleted the streams' snapshots inside the request: 100,000 of them took
 * longer than API Gateway's 29 s, a 504 with the state half deleted. With `stateRemoval:
 * 'background'` (the AWS admin function) the request hides the streams at once and a background
 * step (the pollers' purge job) deletes the snapshots in bounded chunks, then the states.
 */
const bridge = useDynamoBridges('remove-background');

const STREAMS = ['hotel-1:customer', 'hotel-1:resource'];

function snapshots(count: number, updatedAt: number): StoredSnapshot[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `c-${String(i).padStart(6, '0')}`;
    return { entityId: id, hash: `h${i}`, record: { Id: id }, updatedAt };
  });
}

/** Counts the DynamoDB requests `store` sends while `run` runs. */
async function requestsOf(store: DynamoDbStateStore, run: () => Promise<unknown>): Promise<number> {
  const documents = (store as unknown as { documentClient: { send: (...a: unknown[]) => unknown } })
    .documentClient;
  const send = documents.send;
  let requests = 0;
  documents.send = (...args: unknown[]) => {
    requests += 1;
    return send.apply(documents, args);
  };
  try {
    await run();
  } finally {
    documents.send = send;
  }
  return requests;
}

async function snapshotCount(store: DynamoDbStateStore, streamId: string): Promise<number> {
  let count = 0;
  for await (const page of store.scanSnapshots(streamId)) count += page.length;
  return count;
}

/** The bridge of {@link useDynamoBridges} answering as the AWS admin function does. */
async function backgroundBridge() {
  const { harness, deps, state } = await bridge();
  const aws: AdminDeps = { ...deps, stateRemoval: 'background' };
  const call = (method: string, path: string, query: Record<string, string> = {}, body?: unknown) =>
    handleAdminRequest({ method, path, query, body }, aws);
  return { harness, state, call };
}

/** Runs the background step until nothing is left to purge, `chunk` snapshots a step. */
async function purgeToTheEnd(state: DynamoDbStateStore, now: () => number, chunk: number) {
  let runs = 0;
  for (;;) {
    runs += 1;
    const result = await purgeRemovedStreams(state, { now, snapshotsPerStep: chunk });
    if (result.done) return runs;
    if (runs > 100) throw new Error('the purge does not end');
  }
}

describe('removing a connection with many snapshots, state deleted in the background', () => {
  it('answers with as many store requests for 3,000 snapshots as for 20, streams hidden at once', async () => {
    const counts: number[] = [];
    for (const count of [20, 3_000]) {
      const { harness, state, call } = await backgroundBridge();
      for (const streamId of STREAMS)
        await state.putSnapshots(streamId, snapshots(count, harness.clock.now() - 1));
      let answer: Awaited<ReturnType<typeof call>> | undefined;
      counts.push(
        await requestsOf(state, async () => {
          answer = await call('DELETE', '/connections/hotel-1');
        }),
      );
      expect(answer).toMatchObject({
        status: 200,
        body: { id: 'hotel-1', removed: true, streamsDeleted: 2, stateDeletion: 'background' },
      });
      // Gone from every listing at once, though the snapshots are still being deleted.
      expect((await call('GET', '/connections/hotel-1')).status).toBe(404);
      const listed = await call('GET', '/streams');
      expect(JSON.stringify(listed.body)).not.toContain('hotel-1');
      // A reset of a removed stream repeats its removal, as a removal cut off is run again.
      expect((await call('POST', '/streams/hotel-1:customer/reset')).status).toBe(200);
      expect(JSON.stringify((await call('GET', '/streams')).body)).not.toContain('hotel-1');
      expect(await snapshotCount(state, 'hotel-1:customer')).toBe(count);
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it('leaves no snapshot and no state once the background steps ran', async () => {
    const { harness, state, call } = await backgroundBridge();
    for (const streamId of STREAMS)
      await state.putSnapshots(streamId, snapshots(2_500, harness.clock.now() - 1));
    expect((await call('DELETE', '/connections/hotel-1')).status).toBe(200);

    // 1,000 snapshots a step: several steps, each bounded.
    const runs = await purgeToTheEnd(state, () => harness.clock.now(), 1_000);
    expect(runs).toBeGreaterThan(2);
    for (const streamId of STREAMS) {
      expect(await snapshotCount(state, streamId)).toBe(0);
      expect(await state.getStream(streamId)).toBeUndefined();
    }
    expect(await state.listRemovedStreams(10)).toEqual([]);
  });

  it('resets a stream whose connection is gone at once, and the background steps delete it', async () => {
    const { harness, state, call } = await backgroundBridge();
    expect((await call('DELETE', '/connections/hotel-1', { keepState: 'true' })).status).toBe(200);
    await state.putSnapshots('hotel-1:customer', snapshots(1_500, harness.clock.now() - 1));

    const reset = await call('POST', '/streams/hotel-1:customer/reset');
    expect(reset.status).toBe(200);
    const listed = JSON.stringify((await call('GET', '/streams')).body);
    expect(listed).not.toContain('hotel-1:customer');
    // The other stream kept its state: still listed, as a stream no longer polled.
    expect(listed).toContain('hotel-1:resource');

    await purgeToTheEnd(state, () => harness.clock.now(), 1_000);
    expect(await snapshotCount(state, 'hotel-1:customer')).toBe(0);
    expect(await state.getStream('hotel-1:customer')).toBeUndefined();
    expect(await state.getStream('hotel-1:resource')).toBeDefined();
  });

  it('re-adds the id at once: its streams start as after a reset and never see the old snapshots', async () => {
    const { harness, state, call } = await backgroundBridge();
    const removedAt = harness.clock.now();
    await state.putSnapshots('hotel-1:customer', snapshots(1_200, removedAt - 1));
    expect((await call('DELETE', '/connections/hotel-1')).status).toBe(200);
    await harness.clock.advance(1_000);

    const added = await call(
      'POST',
      '/connections',
      {},
      {
        id: 'hotel-1',
        accessToken: 'hotel-access-token-new',
        entities: 'customer,resource',
      },
    );
    expect(added.status).toBe(201);
    // A fresh stream: no watermark, its first sync ahead, the old snapshots marked for deletion
    // (StreamState.resetAt: its poller deletes them before that first sync begins).
    expect(await state.getStream('hotel-1:customer')).toMatchObject({
      watermark: null,
      initialSyncDone: false,
      resetAt: removedAt,
    });
    const view = (await call('GET', '/streams', { connectionId: 'hotel-1' })).body;
    expect(JSON.stringify(view)).toContain('hotel-1:customer');
  });
});
