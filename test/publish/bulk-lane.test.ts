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

  it('knows per subject whether its latest bulk event is handled', async () => {
    const ledger = create(new ManualClock(Date.UTC(2026, 0, 1)));
    const stream = `c${streamSeq++}:customer`;
    const [a, b, never] = [`${stream}#a`, `${stream}#b`, `${stream}#never`];
    await ledger.marked([
      { subject: a, eventId: 'evt_a1' },
      { subject: b, eventId: 'evt_b1' },
    ]);
    expect(await ledger.waitingSubjects([a, b, never])).toEqual(new Set([a, b]));
    await ledger.handledEvents(['evt_a1']);
    expect(await ledger.waitingSubjects([a, b, never])).toEqual(new Set([b]));
    // A later event of `a` sent to the bulk lane holds it again, until it is handled too.
    await ledger.marked([{ subject: a, eventId: 'evt_a2' }]);
    expect(await ledger.waitingSubjects([a, b])).toEqual(new Set([a, b]));
    await ledger.handledEvents(['evt_b1', 'evt_a2', 'evt_a2']);
    expect(await ledger.waitingSubjects([a, b, never])).toEqual(new Set());
  });

  it('keeps the last mark of a subject named twice in one call', async () => {
    const ledger = create(new ManualClock(Date.UTC(2026, 0, 1)));
    const subject = `c${streamSeq++}:customer#twice`;
    await ledger.marked([
      { subject, eventId: 'evt_1' },
      { subject, eventId: 'evt_2' },
    ]);
    await ledger.handledEvents(['evt_1']);
    expect(await ledger.waitingSubjects([subject])).toEqual(new Set([subject]));
    await ledger.handledEvents(['evt_2']);
    expect(await ledger.waitingSubjects([subject])).toEqual(new Set());
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

/** Event `n`, of its own customer unless `subject` names one. */
function event(n: number, connection = 'main', subject?: string): PublishableEvent {
  return PublishableEventSchema.parse({
    ...changeEvent(eventIdOf(n), subject === undefined ? {} : { subject }),
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

  it('sends a live event behind its subject’s bulk event still on its way, other subjects’ live', async () => {
    const { ledger, live, bulk, publisher } = setup();
    await publisher.publish([event(1, 'main', 'c-1'), event(2, 'main', 'c-2')], { lane: 'bulk' });
    // c-1's bulk event waits; c-3 has none; hotel-7's stream has no bulk work.
    await publisher.publish([
      event(3, 'main', 'c-1'),
      event(4, 'main', 'c-3'),
      event(5, 'hotel-7', 'c-1'),
    ]);
    expect(bulk.ids()).toEqual([1, 2, 3].map(eventIdOf));
    expect(live.ids()).toEqual([4, 5].map(eventIdOf));
    // c-1's bulk event handled: its live change that joined it is now c-1's latest there, and
    // c-1's next change follows it into the bulk lane until it is handled too.
    await ledger.handledEvents([eventIdOf(1)]);
    await publisher.publish([event(6, 'main', 'c-1')]);
    expect(bulk.ids()).toEqual([1, 2, 3, 6].map(eventIdOf));
    await ledger.handledEvents([eventIdOf(3), eventIdOf(6)]);
    await publisher.publish([event(7, 'main', 'c-1')]);
    expect(live.ids()).toEqual([4, 5, 7].map(eventIdOf));
    // Once the stream's bulk events are all handled, its subjects are not looked at.
    ledger.waitingSubjects = async () => {
      throw new Error('not to be read');
    };
    await ledger.handled(new Map([['main:customer', 4]]));
    await publisher.publish([event(8, 'main', 'c-2')]);
    expect(live.ids()).toEqual([4, 5, 7, 8].map(eventIdOf));
  });

  it('sends a live event of a stream with bulk work to the bulk queue when it names no entity', async () => {
    const { live, bulk, publisher } = setup();
    await publisher.publish([event(1)], { lane: 'bulk' });
    const { entityId: _entityId, ...data } = event(2).data;
    await publisher.publish([{ ...event(2), data }]);
    expect(bulk.ids()).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(live.ids()).toEqual([]);
  });

  it('sends a live event of a stream with bulk work to the bulk queue when the marks cannot be read', async () => {
    const { ledger, live, bulk, publisher } = setup();
    await publisher.publish([event(1)], { lane: 'bulk' });
    ledger.waitingSubjects = async () => {
      throw new Error('table unavailable');
    };
    await publisher.publish([event(2), event(3, 'hotel-7')]);
    expect(bulk.ids()).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(live.ids()).toEqual([eventIdOf(3)]);
  });

  it('counts bulk events refused for good as handled: they will never be', async () => {
    const { ledger, publisher } = setup(new Set([eventIdOf(2)]));
    const result = await publisher.publish([event(1), event(2)], { lane: 'bulk' });
    expect(result.failures.map((failure) => failure.eventId)).toEqual([eventIdOf(2)]);
    const subjects = [event(1), event(2)].map((e) => `main:customer#${e.data.entityId}`);
    expect(await ledger.waitingSubjects(subjects)).toEqual(new Set([subjects[0]]));
    await ledger.handled(new Map([['main:customer', 1]]));
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());
  });

  it('marks each subject’s latest bulk event before sending it', async () => {
    const { ledger, publisher } = setup();
    const marked: unknown[] = [];
    const mark = ledger.marked.bind(ledger);
    ledger.marked = async (marks) => {
      marked.push(...marks);
      await mark(marks);
    };
    await publisher.publish(
      [event(1, 'main', 'c-1'), event(2, 'main', 'c-2'), event(3, 'main', 'c-1')],
      { lane: 'bulk' },
    );
    expect(marked).toEqual([
      { subject: 'main:customer#c-1', eventId: eventIdOf(3) },
      { subject: 'main:customer#c-2', eventId: eventIdOf(2) },
    ]);
  });

  it.each(['queued', 'marked'] as const)(
    'sends nothing and throws a PublishError when the bulk events cannot be %s',
    async (step) => {
      const { ledger, live, bulk, publisher } = setup();
      ledger[step] = async () => {
        throw new Error('table unavailable');
      };
      await expect(publisher.publish([event(1)], { lane: 'bulk' })).rejects.toBeInstanceOf(
        PublishError,
      );
      expect([...bulk.ids(), ...live.ids()]).toEqual([]);
    },
  );

  it('lets the marks decide when the counts cannot be read, and sends live events to the bulk queue when neither can (late, not out of order)', async () => {
    const { ledger, live, bulk, publisher } = setup();
    await publisher.publish([event(1, 'main', 'c-1')], { lane: 'bulk' });
    ledger.pending = async () => {
      throw new Error('table unavailable');
    };
    await publisher.publish([event(2, 'main', 'c-1'), event(3, 'hotel-7', 'c-3')]);
    expect(bulk.ids()).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(live.ids()).toEqual([eventIdOf(3)]);
    ledger.waitingSubjects = async () => {
      throw new Error('table unavailable');
    };
    await publisher.publish([event(4, 'hotel-7', 'c-4')]);
    expect(bulk.ids()).toEqual([1, 2, 4].map(eventIdOf));
  });
});
