import { describe, expect, it } from 'vitest';
import type { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { useDynamoBridges } from './support/dynamo-bridge.ts';
import { HARNESS_START_MS } from './support/harness.ts';

/**
 * A reset (`POST /streams/{id}/reset`, or `POST /backfill` of a stream whose first sync had not
 * completed) deleted the stream's snapshots inside the request, 25 per BatchWriteItem: a stream
 * of 100,000 took longer than API Gateway's 29 s, leaving a half-reset stream and an error.
 * Now the request writes a state only; the poller deletes the old snapshots.
 */
const bridge = useDynamoBridges('reset-bounded');

/** Counts the DynamoDB requests `store` sends while `run` runs. */
async function requestsOf(store: DynamoDbStateStore, run: () => Promise<unknown>): Promise<number> {
  // The store's document client (one object, shared by its batch helpers).
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

function snapshots(count: number): StoredSnapshot[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `c-${String(i).padStart(6, '0')}`;
    return { entityId: id, hash: `h${i}`, record: { Id: id, LastName: 'Dvořák' }, updatedAt: 1 };
  });
}

describe('a reset of a stream with many snapshots', () => {
  it('answers with as many store requests for 3,000 snapshots as for 20', async () => {
    const counts: number[] = [];
    const states: unknown[] = [];
    for (const count of [20, 3_000]) {
      const { state, call } = await bridge();
      await state.putSnapshots('hotel-1:customer', snapshots(count));
      counts.push(
        await requestsOf(state, async () => {
          const response = await call('POST', '/streams/hotel-1:customer/reset');
          expect(response.status).toBe(200);
        }),
      );
      states.push(await state.getStream('hotel-1:customer'));
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThan(20);
    // The snapshots of before are left to the stream's poller (see StreamState.resetAt).
    for (const stored of states)
      expect(stored).toMatchObject({
        watermark: null,
        initialSyncDone: false,
        resetAt: HARNESS_START_MS,
      });
  });

  it('starts a backfill of a stream in its first sync with as many store requests for 3,000 snapshots as for 20', async () => {
    const counts: number[] = [];
    const states: unknown[] = [];
    for (const count of [20, 3_000]) {
      const { state, call } = await bridge();
      const stored = await state.getStream('hotel-1:customer');
      await state.saveStream(
        streamState('hotel-1:customer', { initialSyncDone: false, watermark: null }),
        stored!.version,
      );
      await state.putSnapshots('hotel-1:customer', snapshots(count));
      counts.push(
        await requestsOf(state, async () => {
          const response = await call('POST', '/backfill', {
            entities: ['customer'],
            connections: ['hotel-1'],
            emit: true,
          });
          expect(response.status).toBe(202);
        }),
      );
      states.push(await state.getStream('hotel-1:customer'));
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThan(20);
    for (const stored of states)
      expect(stored).toMatchObject({
        initialSync: 'emit',
        backfill: { kind: 'first-sync' },
        resetAt: HARNESS_START_MS,
      });
  });
});
