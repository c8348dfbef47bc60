import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { PAGE_COUNT_MAX } from '../../shared/polling/poll-spec.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { SCAN_PAGE_SIZE_DEFAULT, type StateStore } from '../../shared/state/state-store.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 67);
});
afterAll(async () => {
  await harness?.close();
});

const GONE_PREFIX = '00000000-0000-4000-8000-';

/** `store` counting the snapshots its scans have yielded so far in `scanned.count`. */
function countingScans(store: StateStore, scanned: { count: number }): StateStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'scanSnapshots' || typeof value !== 'function') return value;
      return async function* (...args: unknown[]) {
        for await (const page of value.apply(target, args) as AsyncIterable<unknown[]>) {
          scanned.count += page.length;
          yield page;
        }
      };
    },
  });
}

/** `client` noting, at each sweep request (by PaymentRequestIds), its ids and `scanned.count`. */
function notingSweeps(
  client: PollDeps['client'],
  scanned: { count: number },
  requests: { ids: string[]; scannedBefore: number }[],
): PollDeps['client'] {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'paginate' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const ids = (args[1] as { PaymentRequestIds?: string[] }).PaymentRequestIds;
        if (ids) requests.push({ ids, scannedBefore: scanned.count });
        return value.apply(target, args);
      };
    },
  });
}

/**
 * A sweep asks for every live stored id, 1,000 a request. It used to read every stored id and
 * hash of the stream before its first request (about 16 MB per 100,000 records); it reads them
 * as it goes, a request's worth ahead at most.
 */
describe('a sweep of a stream with thousands of stored records', () => {
  it('asks for every live id once, in order, reading the stored ones only a request ahead', async () => {
    const { definition, deps } = harness.streamOf('paymentRequest');
    await pollUntilCaughtUp(definition, deps);
    const now = harness.clock.now();
    // Stored payment requests the connector no longer has: the sweep deletes them.
    await deps.store.putSnapshots(
      definition.streamId,
      Array.from({ length: 4_500 }, (_, i) => ({
        entityId: `${GONE_PREFIX}${String(i).padStart(12, '0')}`,
        hash: 'h',
        record: {},
        updatedAt: now,
      })),
    );
    const live = (await storedIds(deps, definition.streamId)).sort();
    await harness.clock.advance(61 * 60_000);

    const scanned = { count: 0 };
    const requests: { ids: string[]; scannedBefore: number }[] = [];
    const outcome = await pollStream(
      definition,
      {
        ...deps,
        store: countingScans(deps.store, scanned),
        client: notingSweeps(deps.client, scanned, requests),
      },
      't',
    );
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(requests.map((r) => r.ids.length)).toEqual(
      Array.from({ length: Math.ceil(live.length / PAGE_COUNT_MAX) }, (_, k) =>
        Math.min(PAGE_COUNT_MAX, live.length - k * PAGE_COUNT_MAX),
      ),
    );
    expect(requests.flatMap((r) => r.ids)).toEqual(live);
    for (const [k, request] of requests.entries())
      expect(request.scannedBefore).toBeLessThanOrEqual(
        (k + 2) * PAGE_COUNT_MAX + SCAN_PAGE_SIZE_DEFAULT,
      );
    expect((await storedIds(deps, definition.streamId)).sort()).toEqual(
      live.filter((id) => !id.startsWith(GONE_PREFIX)),
    );
  });
});
