import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  BULK_LANE_STALL_MS,
  type BulkLaneLedger,
  isBulkPending,
  MemoryBulkLaneLedger,
} from '../../shared/publish/bulk-lane.ts';
import { DynamoDbBulkLaneLedger } from '../../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { LaneRoutingPublisher } from '../../shared/publish/lane-routing-publisher.ts';
import {
  type PublishableEvent,
  PublishableEventSchema,
} from '../../shared/publish/publishable-event.ts';
import {
  type EventPublisher,
  PublishError,
  type PublishOptions,
  type PublishResult,
} from '../../shared/publish/publisher.ts';
import { changeEvent, eventIdOf } from '../webhooks/support/harness.ts';
import { type LocalTable, startLocalTable } from '../webhooks/support/local-dynamodb.ts';

describe('isBulkPending', () => {
  it('holds while more were queued than handled and the counts moved lately', () => {
    expect(isBulkPending({ queued: 3, handled: 2, movedAt: 0 }, 1_000)).toBe(true);
    expect(isBulkPending({ queued: 3, handled: 3, movedAt: 0 }, 1_000)).toBe(false);
    expect(isBulkPending(undefined, 1_000)).toBe(false);
  });

  it('lets go of a stream whose counts stalled (its events went to a dead-letter queue)', () => {
    const count = { queued: 3, handled: 2, movedAt: 0 };
    expect(isBulkPending(count, BULK_LANE_STALL_MS - 1)).toBe(true);
    expect(isBulkPending(count, BULK_LANE_STALL_MS)).toBe(false);
  });
});

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('bulk-lane-test');
});
afterAll(async () => {
  await table?.stop();
});

let streamSeq = 0;
const ledgers: [string, (clock: ManualClock) => BulkLaneLedger][] = [
  ['MemoryBulkLaneLedger', (clock) => new MemoryBulkLaneLedger(clock)],
  [
    'DynamoDbBulkLaneLedger (dynalite)',
    (clock) =>
      new DynamoDbBulkLaneLedger({ client: table.client, tableName: table.tableName, clock }),
  ],
];

describe.each(ledgers)('%s', (_name, create) => {
  it('says a stream is pending from its first queued event until as many are handled', async () => {
    const ledger = create(new ManualClock(Date.UTC(2026, 0, 1)));
    const [a, b] = [`c${streamSeq}:customer`, `c${streamSeq++}:resource`];
    expect(await ledger.pending([a, b])).toEqual(new Set());
    await ledger.queued(new Map([[a, 3]]));
    expect(await ledger.pending([a, b])).toEqual(new Set([a]));
    await ledger.handled(new Map([[a, 2]]));
    expect(await ledger.pending([a, b])).toEqual(new Set([a]));
    await ledger.handled(new Map([[a, 1]]));
    expect(await ledger.pending([a, b])).toEqual(new Set());
  });

  it('lets go of a stream whose counts have not moved for the stall time', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = create(clock);
    const stream = `c${streamSeq++}:customer`;
    await ledger.queued(new Map([[stream, 2]]));
    await clock.advance(BULK_LANE_STALL_MS);
    expect(await ledger.pending([stream])).toEqual(new Set());
  });
});

/** A publisher that keeps what it was given and accepts all but `refuse`d ids. */
function recordingPublisher(refuse: ReadonlySet<string> = new Set()) {
  const calls: { ids: string[]; options?: PublishOptions }[] = [];
  const publisher: EventPublisher = {
    async publish(events, options): Promise<PublishResult> {
      calls.push({ ids: events.map((event) => event.id), options });
      const failures = events
        .filter((event) => refuse.has(event.id))
        .map((event) => ({
          eventId: event.id,
          eventType: event.type,
          target: 'dispatch-queue',
          code: 'EventTooLarge',
          message: 'too large',
        }));
      return { published: events.length - failures.length, thinned: 0, failures };
    },
  };
  return {
    publisher,
    ids: () => calls.flatMap((call) => call.ids),
    options: () => calls.map((call) => call.options),
  };
}

function event(n: number, connection = 'main'): PublishableEvent {
  return PublishableEventSchema.parse({
    ...changeEvent(eventIdOf(n)),
    source: `connector/${connection}`,
  });
}

describe('LaneRoutingPublisher', () => {
  function setup(refuse?: ReadonlySet<string>) {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    const live = recordingPublisher();
    const bulk = recordingPublisher(refuse);
    const publisher = new LaneRoutingPublisher({
      live: live.publisher,
      bulk: bulk.publisher,
      ledger,
    });
    return { clock, ledger, live, bulk, publisher };
  }

  it('sends bulk work’s events to the bulk queue and counts them first', async () => {
    const { ledger, live, bulk, publisher } = setup();
    const result = await publisher.publish([event(1), event(2)], { lane: 'bulk' });
    expect(result.published).toBe(2);
    expect(bulk.ids()).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(live.ids()).toEqual([]);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set(['main:customer']));
  });

  it('hands the deadline of the publish to both lanes', async () => {
    const { live, bulk, publisher } = setup();
    await publisher.publish([event(1)], { lane: 'bulk', deadline: 42 });
    await publisher.publish([event(2, 'hotel-7')], { deadline: 43 });
    expect(bulk.options()).toEqual([{ lane: 'bulk', deadline: 42 }]);
    expect(live.options()).toEqual([{ lane: 'live', deadline: 43 }]);
  });

  it('sends a live event of a stream with bulk events on their way to the bulk queue, others live', async () => {
    const { ledger, live, bulk, publisher } = setup();
    await publisher.publish([event(1)], { lane: 'bulk' });
    await publisher.publish([event(2), event(3, 'hotel-7')]);
    expect(bulk.ids()).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(live.ids()).toEqual([eventIdOf(3)]);
    // Once the stream's bulk events (the live one that joined them included) are handled:
    await ledger.handled(new Map([['main:customer', 2]]));
    await publisher.publish([event(4)]);
    expect(live.ids()).toEqual([eventIdOf(3), eventIdOf(4)]);
  });

  it('counts bulk events refused for good as handled: they will never be', async () => {
    const { ledger, publisher } = setup(new Set([eventIdOf(2)]));
    const result = await publisher.publish([event(1), event(2)], { lane: 'bulk' });
    expect(result.failures.map((failure) => failure.eventId)).toEqual([eventIdOf(2)]);
    await ledger.handled(new Map([['main:customer', 1]]));
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());
  });

  it('sends nothing and throws a PublishError when the bulk events cannot be counted', async () => {
    const { ledger, live, bulk, publisher } = setup();
    ledger.queued = async () => {
      throw new Error('table unavailable');
    };
    await expect(publisher.publish([event(1)], { lane: 'bulk' })).rejects.toBeInstanceOf(
      PublishError,
    );
    expect([...bulk.ids(), ...live.ids()]).toEqual([]);
  });

  it('sends live events to the bulk queue when the counts cannot be read (late, not out of order)', async () => {
    const { ledger, live, bulk, publisher } = setup();
    ledger.pending = async () => {
      throw new Error('table unavailable');
    };
    await publisher.publish([event(1)]);
    expect(bulk.ids()).toEqual([eventIdOf(1)]);
    expect(live.ids()).toEqual([]);
  });
});
