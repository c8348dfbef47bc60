import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { eventListPages, listedEvent } from './support/event-list.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-list-cost');
});
afterAll(async () => {
  await table.stop();
});

/** A store on a fresh table whose client counts the requests it sends. */
async function countedStore() {
  const sent = { count: 0 };
  const { client, tableName, close } = await table.observedTable('cost', () => {
    sent.count += 1;
  });
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new DynamoDbWebhookStore({ client, tableName, clock });
  return { store, sent, close };
}

describe('event list on DynamoDB past events listed and not stored yet (dynalite)', () => {
  it('reads a page of 1 behind 300 listed and not stored events in a few requests, not two per such event', async () => {
    const { store, sent, close } = await countedStore();
    try {
      await store.putEvent(listedEvent('evt_old', 1_000));
      // One fan-out lists its 300 new events before its sends, and stores them after.
      await store.indexEvents(
        Array.from({ length: 300 }, (_, i) =>
          listedEvent(`evt_new_${String(i).padStart(3, '0')}`, 2_000),
        ),
      );
      sent.count = 0;
      const page = await store.listEvents({ limit: 1 });
      expect(page.events.map((e) => e.id)).toEqual(['evt_old']);
      expect(page.listedUnstored).toHaveLength(300);
      expect(sent.count).toBeLessThanOrEqual(30);
    } finally {
      close();
    }
  });

  it('pages past listed and not stored events without skipping or repeating a stored one', async () => {
    const { store, close } = await countedStore();
    try {
      // Stored and not stored events alternate in the list, in runs of growing length.
      const ids: string[] = [];
      let at = 1_000;
      for (let run = 0; run < 12; run++) {
        const stored = listedEvent(`evt_s${String(run).padStart(2, '0')}`, at++);
        await store.putEvent(stored);
        ids.unshift(stored.id);
        await store.indexEvents(
          Array.from({ length: run * 3 }, (_, i) => listedEvent(`evt_u${run}_${i}`, at++)),
        );
      }
      for (const limit of [1, 2, 5]) {
        expect((await eventListPages(store, limit, 50)).flat()).toEqual(ids);
      }
    } finally {
      close();
    }
  });

  it('gives an event listed twice once in a page that reads past an event not stored yet', async () => {
    const { store, close } = await countedStore();
    try {
      await store.putEvent(listedEvent('evt_b', 500));
      await store.putEvent(listedEvent('evt_a', 1_000));
      // Not stored yet, and evt_a listed again after it (two batches fanned it out at once).
      await store.indexEvents([listedEvent('evt_u', 2_500)]);
      await store.indexEvents([listedEvent('evt_a', 3_000)]);
      const page = await store.listEvents({ limit: 2 });
      expect(page.events.map((e) => e.id)).toEqual(['evt_a', 'evt_b']);
    } finally {
      close();
    }
  });
});
