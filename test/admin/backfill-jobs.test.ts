import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BackfillJob,
  type BackfillJobStore,
  type BackfillStreamOutcome,
  MemoryBackfillJobStore,
} from '../../shared/admin/backfill-jobs.ts';
import { DynamoDbBackfillJobStore } from '../../shared/admin/dynamodb-backfill-job-store.ts';
import { ManualClock } from '../../shared/clock.ts';
import { BridgeError, ValidationError } from '../../shared/errors.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const job: BackfillJob = {
  id: 'bf_1',
  startedAt: Date.UTC(2026, 0, 1),
  emit: true,
  entities: ['customer', 'resource'],
  streamIds: ['main:customer', 'main:resource'],
  historyStartMs: Date.UTC(2021, 0, 1),
  doneAtMs: Date.UTC(2026, 0, 1) - 5000,
};

/** 120 streams: more than one update expression of the DynamoDB store holds. */
const STREAMS = Array.from({ length: 120 }, (_, index) => `hotel-${index}:customer`);

/** An outcome with `recordsRead` records read. */
function outcome(recordsRead: number, endedBy: BackfillStreamOutcome['endedBy']) {
  return { doneAt: job.startedAt + 1_000, recordsRead, eventsPublished: 0, endedBy };
}

let dynamo: LocalDynamoDb;
let tables = 0;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});
afterAll(async () => {
  await dynamo?.close();
});

async function dynamoStore(clock = new ManualClock()): Promise<BackfillJobStore> {
  tables += 1;
  const tableName = `backfill-${process.pid}-${tables}`;
  await createStateTable(dynamo.client, tableName);
  return new DynamoDbBackfillJobStore({
    client: dynamo.client,
    tableName,
    clock,
    retentionMs: 60_000,
  });
}

const implementations: [string, () => Promise<BackfillJobStore>][] = [
  ['MemoryBackfillJobStore', async () => new MemoryBackfillJobStore()],
  ['DynamoDbBackfillJobStore on dynalite', () => dynamoStore()],
];

describe.each(implementations)('%s', (_name, create) => {
  it('stores a job and reads it back equal; unknown ids are undefined', async () => {
    const store = await create();
    await store.put(job);
    expect(await store.get('bf_1')).toEqual(job);
    expect(await store.get('bf_2')).toBeUndefined();
  });

  it('refuses a malformed job naming the field, before writing', async () => {
    const store = await create();
    const error = await store.put({ ...job, id: '' }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.path).toBe('id');
    expect(await store.get('')).toBeUndefined();
  });

  it('adds the outcomes and delivery counters a job lacks, keeps those it has, and answers the job', async () => {
    const store = await create();
    await store.put({ ...job, deliveredUntil: { 'main:customer': 12 } });
    const first = await store.keep('bf_1', {
      outcomes: { 'main:customer': outcome(120, 'superseded') },
      deliveredUntil: { 'main:customer': 40, 'main:resource': 7 },
    });
    const expected = {
      ...job,
      outcomes: { 'main:customer': outcome(120, 'superseded') },
      deliveredUntil: { 'main:customer': 12, 'main:resource': 7 },
    };
    expect(first).toEqual(expected);
    // A later writer never replaces what was kept; its new entries are added.
    const second = await store.keep('bf_1', {
      outcomes: { 'main:customer': outcome(0, 'removed'), 'main:resource': outcome(9, null) },
      deliveredUntil: { 'main:resource': 99 },
    });
    const both = {
      ...expected,
      outcomes: { ...expected.outcomes, 'main:resource': outcome(9, null) },
    };
    expect(second).toEqual(both);
    expect(await store.get('bf_1')).toEqual(both);
  });

  it('keeps every entry of writers adding at once, and of one adding more than an update holds', async () => {
    const store = await create();
    const many = { ...job, streamIds: STREAMS };
    await store.put(many);
    await Promise.all(
      STREAMS.map((streamId, index) =>
        store.keep('bf_1', { outcomes: { [streamId]: outcome(index, 'removed') } }),
      ),
    );
    // Then one writer with every stream: more entries than one DynamoDB update expression holds.
    await store.keep('bf_1', {
      outcomes: Object.fromEntries(STREAMS.map((streamId) => [streamId, outcome(0, null)])),
      deliveredUntil: Object.fromEntries(STREAMS.map((streamId, index) => [streamId, index])),
    });
    const stored = await store.get('bf_1');
    expect(Object.keys(stored?.outcomes ?? {})).toHaveLength(STREAMS.length);
    STREAMS.forEach((streamId, index) => {
      expect(stored?.outcomes?.[streamId]).toEqual(outcome(index, 'removed'));
      expect(stored?.deliveredUntil?.[streamId]).toBe(index);
    });
  });

  it('stores a job over thousands of streams and keeps their entries, past one item of 400 KB', async () => {
    const store = await create();
    // 500 connections of 13 streams: the stream ids and counters alone pass DynamoDB's item limit.
    const entityTypes = ['customer', 'reservationGroup', 'resourceCategoryImageAssignment'];
    const streamIds = Array.from(
      { length: 500 * 13 },
      (_, index) =>
        `hotel-prague-${String(Math.floor(index / 13)).padStart(4, '0')}:${entityTypes[index % 3]}${index % 13}`,
    );
    const deliveredAtStart = Object.fromEntries(streamIds.map((id, index) => [id, index]));
    const large = { ...job, streamIds, deliveredAtStart };
    await store.put(large);
    expect(await store.get('bf_1')).toEqual(large);

    const ended = streamIds.slice(0, 300);
    const kept = await store.keep('bf_1', {
      outcomes: Object.fromEntries(ended.map((id, index) => [id, outcome(index, null)])),
      deliveredUntil: Object.fromEntries(ended.map((id) => [id, 1_000_000])),
    });
    expect(Object.keys(kept?.outcomes ?? {}).sort()).toEqual([...ended].sort());
    expect(kept?.streamIds).toEqual(streamIds);
    expect((await store.get('bf_1'))?.deliveredUntil?.[ended[299]!]).toBe(1_000_000);
  });

  it('answers an unknown job as undefined and stores nothing for it', async () => {
    const store = await create();
    expect(await store.keep('bf_2', { outcomes: { 'main:customer': outcome(1, null) } })).toBe(
      undefined,
    );
    expect(await store.get('bf_2')).toBeUndefined();
  });

  it('refuses a malformed entry naming the field, before writing', async () => {
    const store = await create();
    await store.put(job);
    const error = await store
      .keep('bf_1', { outcomes: { 'main:customer': { ...outcome(1, null), recordsRead: -1 } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.path).toBe('outcomes.main:customer.recordsRead');
    expect(await store.get('bf_1')).toEqual(job);
  });

  it("adds up the events writes published in a job's streams, every addition of writers at once", async () => {
    const store = await create();
    await store.put(job);
    await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        store.addWritten('bf_1', 'main:customer', { events: 2, announced: index % 2 }),
      ),
    );
    await store.addWritten('bf_1', 'main:resource', { events: 1, announced: 0 });
    await store.keep('bf_1', { outcomes: { 'main:customer': outcome(3, null) } });
    expect((await store.get('bf_1'))?.written).toEqual({
      'main:customer': { events: 10, announced: 2 },
      'main:resource': { events: 1, announced: 0 },
    });
    await store.addWritten('bf_2', 'main:customer', { events: 1, announced: 1 });
    expect(await store.get('bf_2')).toBeUndefined();
  });

  it('lists jobs newest first in pages, the same millisecond by id, each as started', async () => {
    const store = await create();
    const started = [
      { id: 'bf_a', startedAt: job.startedAt },
      { id: 'bf_c', startedAt: job.startedAt + 2_000 },
      { id: 'bf_b', startedAt: job.startedAt + 2_000 },
      { id: 'bf_d', startedAt: job.startedAt + 1_000 },
    ];
    for (const { id, startedAt } of started) await store.put({ ...job, id, startedAt });
    await store.put({ ...job, id: 'bf_named', startedAt: 10, connectionsNamed: true });
    const ids: string[] = [];
    let after: Awaited<ReturnType<BackfillJobStore['list']>>['next'];
    let pages = 0;
    do {
      const page = await store.list({ limit: 2, ...(after ? { after } : {}) });
      ids.push(...page.jobs.map((j) => j.id));
      after = page.next;
      pages += 1;
    } while (after);
    expect(ids).toEqual(['bf_c', 'bf_b', 'bf_d', 'bf_a', 'bf_named']);
    expect(pages).toBe(3);
    const whole = await store.list({ limit: 5 });
    expect(whole.next).toBeUndefined();
    expect(whole.jobs[0]).toEqual({
      id: 'bf_c',
      startedAt: job.startedAt + 2_000,
      emit: true,
      entities: ['customer', 'resource'],
      streamCount: 2,
    });
    expect(whole.jobs[4]).toMatchObject({ id: 'bf_named', connectionsNamed: true });
    expect(await (await create()).list({ limit: 10 })).toEqual({ jobs: [] });
  });
});

describe('DynamoDbBackfillJobStore', () => {
  it('lists no job past its retention', async () => {
    const clock = new ManualClock();
    const store = await dynamoStore(clock);
    await store.put(job);
    clock.advance(30_000);
    await store.put({ ...job, id: 'bf_2', startedAt: job.startedAt + 30_000 });
    expect((await store.list({ limit: 1 })).next).toEqual({
      startedAt: job.startedAt + 30_000,
      id: 'bf_2',
    });
    clock.advance(40_000);
    expect(await store.list({ limit: 1 })).toMatchObject({ jobs: [{ id: 'bf_2' }] });
    expect((await store.list({ limit: 1 })).next).toBeUndefined();
  });

  it('treats a job past its retention as gone', async () => {
    const clock = new ManualClock();
    const store = await dynamoStore(clock);
    await store.put(job);
    await clock.advance(60_001);
    expect(await store.get('bf_1')).toBeUndefined();
  });

  it('adds entries to a job stored with them in its document, keeping those it had', async () => {
    const tableName = `backfill-${process.pid}-${++tables}`;
    await createStateTable(dynamo.client, tableName);
    const clock = new ManualClock();
    const store = new DynamoDbBackfillJobStore({ client: dynamo.client, tableName, clock });
    // As the store wrote a job before its outcomes and delivery counters lived beside `doc`.
    const stored = {
      ...job,
      outcomes: { 'main:customer': outcome(120, 'superseded') },
      deliveredUntil: { 'main:customer': 40 },
    };
    await dynamo.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: marshall(
          { pk: 'BACKFILL#bf_1', sk: 'JOB', doc: stored, ttl: 1_000_000_000_000 },
          { removeUndefinedValues: true },
        ),
      }),
    );
    const kept = await store.keep('bf_1', {
      outcomes: { 'main:customer': outcome(0, 'removed'), 'main:resource': outcome(9, null) },
      deliveredUntil: { 'main:customer': 500, 'main:resource': 3 },
    });
    const expected = {
      ...stored,
      outcomes: { ...stored.outcomes, 'main:resource': outcome(9, null) },
      deliveredUntil: { 'main:customer': 40, 'main:resource': 3 },
    };
    expect(kept).toEqual(expected);
    expect(await store.get('bf_1')).toEqual(expected);
  });

  it('adds entries to a job stored with them in maps beside its document, keeping those it had', async () => {
    const tableName = `backfill-${process.pid}-${++tables}`;
    await createStateTable(dynamo.client, tableName);
    const store = new DynamoDbBackfillJobStore({
      client: dynamo.client,
      tableName,
      clock: new ManualClock(),
    });
    // As the store wrote a job while its entries lived in two maps of the job item.
    await dynamo.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: marshall({
          pk: 'BACKFILL#bf_1',
          sk: 'JOB',
          doc: job,
          outcomes: { 'main:customer': outcome(120, 'superseded') },
          deliveredUntil: { 'main:customer': 40 },
          ttl: 1_000_000_000_000,
        }),
      }),
    );
    const kept = await store.keep('bf_1', {
      outcomes: { 'main:customer': outcome(0, 'removed'), 'main:resource': outcome(9, null) },
      deliveredUntil: { 'main:customer': 500, 'main:resource': 3 },
    });
    const expected = {
      ...job,
      outcomes: { 'main:customer': outcome(120, 'superseded'), 'main:resource': outcome(9, null) },
      deliveredUntil: { 'main:customer': 40, 'main:resource': 3 },
    };
    expect(kept).toEqual(expected);
    expect(await store.get('bf_1')).toEqual(expected);
  });

  it('reports a missing table as a non-retryable BridgeError naming the table', async () => {
    const store = new DynamoDbBackfillJobStore({
      client: dynamo.client,
      tableName: 'no-such-table',
      clock: new ManualClock(),
    });
    const error = await store.get('bf_1').catch((e) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('no-such-table');
  });

  it('reports denied access as a non-retryable BridgeError, and a throttle as retryable, as the other stores do', async () => {
    const failing = (name: string) => {
      const client = new DynamoDBClient({
        region: 'eu-west-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      client.middlewareStack.add(
        () => async () => {
          throw Object.assign(new Error(`${name} here`), { name });
        },
        { step: 'initialize' },
      );
      return new DynamoDbBackfillJobStore({ client, tableName: 'jobs', clock: new ManualClock() });
    };
    const denied = await failing('AccessDeniedException')
      .get('bf_1')
      .catch((e) => e);
    expect(denied).toBeInstanceOf(BridgeError);
    expect(denied).toMatchObject({ retryable: false });
    expect(denied.message).toContain('AccessDeniedException');
    const throttled = await failing('ThrottlingException')
      .put(job)
      .catch((e) => e);
    expect(throttled).toMatchObject({ retryable: true });
    expect(throttled.message).toContain('jobs');
  });
});
