import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { encodeEventCursor, LATEST_LISTED_AT_MS } from '../../shared/webhooks/event-cursor.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-event-order');
});
afterAll(async () => {
  await table.stop();
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A dispatcher on a fresh DynamoDB (dynalite) table, its clock at 2026-01-01. */
async function setup() {
  const tableName = await table.freshTable('order');
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new DynamoDbWebhookStore({ client: table.client, tableName, clock });
  const fixture = await startDispatchFixture(cleanup, undefined, { clock, store });
  return { ...fixture, clock, store };
}

describe('event list order on DynamoDB (dynalite)', () => {
  it('lists an event published again where it was first stored, so the feed since a later instant keeps what came after', async () => {
    const { harness, subscribe, clock } = await setup();
    await subscribe('/ddb');
    const publish = (n: number, messageId: string) =>
      processDispatchBatch(
        [{ messageId, body: envelope(changeEvent(eventIdOf(n))) }],
        harness.deps,
      );
    await publish(1, 'm-first');
    clock.advance(1000);
    const afterFirst = clock.now();
    await publish(2, 'm-second');
    clock.advance(1000);
    // The poller re-detects the first change and publishes the same event again.
    await publish(1, 'm-again');
    expect((await harness.service.listEvents()).map((e) => e.id)).toEqual([
      eventIdOf(2),
      eventIdOf(1),
    ]);
    const { events: feed } = await harness.service.feedEvents({ sinceMs: afterFirst });
    expect(feed.map((e) => e.id)).toEqual([eventIdOf(2)]);
  });

  it('keeps in the feed since an instant the events listed after one listed twice', async () => {
    const { harness, store } = await setup();
    const stored = (n: number, storedAt: number) => ({
      id: eventIdOf(n),
      type: 'customer.updated',
      storedAt,
      body: envelope(changeEvent(eventIdOf(n))),
    });
    await store.putEvent(stored(1, 1000));
    await store.putEvent(stored(2, 2000));
    // Listed again later (two batches fanning it out at once, or a list written before only
    // new events were listed): it stands first, with the `storedAt` it was stored with.
    await store.indexEvents([stored(1, 3000)]);
    const { events: feed } = await harness.service.feedEvents({ sinceMs: 2000 });
    expect(feed.map((e) => e.id)).toEqual([eventIdOf(2)]);
  });

  it('pages after a forged cursor within the list only: one at the last instant of year 9999 lists every event, one past it or before 1970 is refused', async () => {
    const { harness, store } = await setup();
    await store.putEvent({
      id: eventIdOf(1),
      type: 'customer.updated',
      storedAt: 1000,
      body: envelope(changeEvent(eventIdOf(1))),
    });
    const latest = encodeEventCursor({ at: LATEST_LISTED_AT_MS, id: 'evt_~' });
    const page = await harness.service.listEventPage({ cursor: latest });
    expect(page.events.map((e) => e.id)).toEqual([eventIdOf(1)]);
    for (const at of [LATEST_LISTED_AT_MS + 1, 8.64e15, Number.MAX_SAFE_INTEGER, -1]) {
      const forged = encodeEventCursor({ at, id: 'evt_1' });
      await expect(harness.service.listEventPage({ cursor: forged }), String(at)).rejects.toThrow(
        /cursor/,
      );
    }
  });
});
