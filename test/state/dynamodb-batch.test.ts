import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Clock, ManualClock } from '../../shared/clock.ts';
import { forEachConcurrently } from '../../shared/concurrency.ts';
import { BridgeError } from '../../shared/errors.ts';
import {
  BATCH_MAX_ATTEMPTS,
  BATCH_RETRY_MAX_DELAY_MS,
  batchRetryDelayMs,
} from '../../shared/state/dynamodb-batch.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { WebhookTable } from '../../shared/webhooks/dynamodb-table-access.ts';
import { snapshot } from './state-store.contract.ts';

const TABLE = 'state';
const documentMock = mockClient(DynamoDBDocumentClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => documentMock.restore());

afterEach(() => {
  documentMock.reset();
});

/** A ManualClock that also records every wait asked of it. */
class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(readonly manual = new ManualClock(0)) {}
  now(): number {
    return this.manual.now();
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return this.manual.sleep(ms, signal);
  }
}

function storeWith(clock: Clock): DynamoDbStateStore {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return new DynamoDbStateStore({ client, tableName: TABLE, clock, random: () => 0.5 });
}

/** Lets the code under test run until it parks on the clock (event-loop turns, no timers). */
async function untilSleeping(clock: ManualClock): Promise<void> {
  for (let turn = 0; turn < 1_000 && clock.pendingSleeps === 0; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(clock.pendingSleeps).toBeGreaterThan(0);
}

function writtenIds(input: BatchWriteCommandInput): string[] {
  return (input.RequestItems?.[TABLE] ?? []).map((request) =>
    String(request.PutRequest?.Item?.entityId),
  );
}

describe('DynamoDbStateStore batch retries', () => {
  it('retries only the UnprocessedItems, after a backoff waited on the injected clock', async () => {
    const clock = new RecordingClock();
    const snapshots = Array.from({ length: 30 }, (_, i) => snapshot(`e${i}`));
    const unprocessed = ['e3', 'e7', 'e20'].map((id) => ({
      PutRequest: { Item: { pk: 'STREAM#main:customer', sk: `SNAP#${id}`, entityId: id } },
    }));
    documentMock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: unprocessed } })
      .resolves({});

    const writing = storeWith(clock).putSnapshots('main:customer', snapshots);
    await untilSleeping(clock.manual);
    const calls = () => documentMock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input);
    expect(calls().map((input) => writtenIds(input).length)).toEqual([25, 5]);
    expect(clock.sleeps).toEqual([batchRetryDelayMs(1, () => 0.5)]);

    await clock.manual.advance(clock.sleeps[0]! - 1);
    expect(calls()).toHaveLength(2);
    await clock.manual.advance(1);
    await writing;

    expect(calls()).toHaveLength(3);
    expect(writtenIds(calls()[2]!)).toEqual(['e3', 'e7', 'e20']);
  });

  it('gives up with a retryable BridgeError when items stay unprocessed', async () => {
    const clock = new RecordingClock();
    const unprocessed = [{ PutRequest: { Item: { pk: 'STREAM#s', sk: 'SNAP#a', entityId: 'a' } } }];
    documentMock.on(BatchWriteCommand).resolves({ UnprocessedItems: { [TABLE]: unprocessed } });

    const writing = storeWith(clock)
      .putSnapshots('s', [snapshot('a')])
      .catch((error: unknown) => error);
    for (let retry = 1; retry < BATCH_MAX_ATTEMPTS; retry++) {
      await untilSleeping(clock.manual);
      expect(clock.sleeps).toHaveLength(retry);
      await clock.manual.advance(clock.sleeps[retry - 1]!);
    }
    const error = await writing;

    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ retryable: true });
    expect(documentMock.commandCalls(BatchWriteCommand)).toHaveLength(BATCH_MAX_ATTEMPTS);
    expect(clock.sleeps).toHaveLength(BATCH_MAX_ATTEMPTS - 1);
    // Each wait doubles (jitter fixed at 0.5 here) until the cap.
    expect(clock.sleeps.slice(0, 3)).toEqual([18.75, 37.5, 75]);
  });

  it('retries only the UnprocessedKeys of a BatchGetItem and merges what each attempt found', async () => {
    const clock = new RecordingClock();
    const item = (id: string) => ({
      pk: 'STREAM#s',
      sk: `SNAP#${id}`,
      entityId: id,
      hash: 'h',
      record: '{}',
      updatedAt: 1,
    });
    documentMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [item('a')] },
        UnprocessedKeys: { [TABLE]: { Keys: [{ pk: 'STREAM#s', sk: 'SNAP#b' }] } },
      })
      .resolves({ Responses: { [TABLE]: [item('b')] } });

    const reading = storeWith(clock).getSnapshots('s', ['a', 'b', 'c']);
    await untilSleeping(clock.manual);
    await clock.manual.advance(clock.sleeps[0]!);
    const found = await reading;

    expect([...found.keys()].sort()).toEqual(['a', 'b']);
    const keys = documentMock
      .commandCalls(BatchGetCommand)
      .map((c) => (c.args[0].input as BatchGetCommandInput).RequestItems?.[TABLE]?.Keys);
    expect(keys).toEqual([
      [
        { pk: 'STREAM#s', sk: 'SNAP#a' },
        { pk: 'STREAM#s', sk: 'SNAP#b' },
        { pk: 'STREAM#s', sk: 'SNAP#c' },
      ],
      [{ pk: 'STREAM#s', sk: 'SNAP#b' }],
    ]);
  });
});

describe('batchRetryDelayMs', () => {
  it('doubles per retry, stays between half and all of its ceiling, and is capped', () => {
    expect(batchRetryDelayMs(1, () => 0)).toBe(12.5);
    expect(batchRetryDelayMs(1, () => 0.999)).toBeCloseTo(24.99, 2);
    expect(batchRetryDelayMs(3, () => 0)).toBe(50);
    expect(batchRetryDelayMs(30, () => 0)).toBe(BATCH_RETRY_MAX_DELAY_MS / 2);
    expect(batchRetryDelayMs(30, () => 0.999)).toBeLessThan(BATCH_RETRY_MAX_DELAY_MS);
  });
});

describe('forEachConcurrently', () => {
  it('never runs more than the limit at once and runs every item', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7, 8, 9], 4, async (n) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(n);
      running -= 1;
    });

    expect(peak).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('starts nothing new after a failure and throws the first error', async () => {
    const started: number[] = [];
    const running = forEachConcurrently([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await new Promise((resolve) => setImmediate(resolve));
      if (n === 1) throw new Error('first');
      if (n === 2) throw new Error('second');
    });

    await expect(running).rejects.toThrow('first');
    expect(started).toEqual([1, 2]);
  });
});

describe('WebhookTable batch reads', () => {
  function tableWith(clock: Clock): WebhookTable {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    return new WebhookTable(DynamoDBDocumentClient.from(client), TABLE, {
      clock,
      random: () => 0.5,
    });
  }

  it('waits a backoff before asking again for UnprocessedKeys, and gives up after the last attempt', async () => {
    const clock = new RecordingClock();
    const key = { pk: 'SUB#s1', sk: 'SUB' };
    let asked = 0;
    // A throttled table answers every request with the key unprocessed; a loop that never
    // pauses would spin here until the Lambda timeout (the guard ends it for the test).
    documentMock.on(BatchGetCommand).callsFake(() => {
      asked += 1;
      if (asked > 50) throw new Error('asked 50 times without a pause');
      return { Responses: { [TABLE]: [] }, UnprocessedKeys: { [TABLE]: { Keys: [key] } } };
    });

    const reading = tableWith(clock)
      .batchGetItems([key])
      .catch((error: unknown) => error);
    for (let retry = 1; retry < BATCH_MAX_ATTEMPTS; retry++) {
      await untilSleeping(clock.manual);
      expect(asked).toBe(retry);
      await clock.manual.advance(clock.sleeps[retry - 1]!);
    }
    const error = await reading;

    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ retryable: true });
    expect(asked).toBe(BATCH_MAX_ATTEMPTS);
  });

  it('returns the items of keys unprocessed at first, in the order of the keys', async () => {
    const clock = new RecordingClock();
    const keys = ['a', 'b', 'c'].map((id) => ({ pk: `SUB#${id}`, sk: 'SUB' }));
    documentMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [{ ...keys[2], doc: 'c' }] },
        UnprocessedKeys: { [TABLE]: { Keys: [keys[0]!] } },
      })
      .resolves({ Responses: { [TABLE]: [{ ...keys[0], doc: 'a' }] } });

    const reading = tableWith(clock).batchGetItems(keys);
    await untilSleeping(clock.manual);
    await clock.manual.advance(clock.sleeps[0]!);

    expect((await reading).map((item) => item.doc)).toEqual(['a', 'c']);
  });
});
