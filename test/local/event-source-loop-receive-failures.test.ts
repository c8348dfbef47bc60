import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  RECEIVE_FAILURE_TOLD_EVERY_MS,
  RECEIVE_RETRY_MAX_MS,
  startEventSourceLoop,
} from '../../shared/local/event-source-loop.ts';

describe('the event source loop while every receive fails (its queue on a full disk)', () => {
  it('tells the first failure and then one per 30 s, and each worker tries again at most every 5 s', async () => {
    const clock = new ManualClock(0);
    let receives = 0;
    let failing = true;
    const client = {
      send: async () => {
        receives += 1;
        if (failing) throw new Error('ENOSPC: no space left on device, write');
        // A long poll that finds nothing.
        await clock.sleep(20_000);
        return { Messages: [] };
      },
    } as unknown as SQSClient;
    const told: unknown[] = [];
    const loop = startEventSourceLoop({
      client,
      queueUrl: 'http://127.0.0.1:1/000000000000/dispatch',
      handler: async () => ({ batchItemFailures: [] }),
      concurrency: 32,
      waitTimeSeconds: 0,
      clock,
      onError: (error) => told.push(error),
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
    // Two minutes, a second at a time.
    for (let second = 0; second < 120; second++) {
      await settle();
      await clock.advance(1_000);
    }
    await settle();
    // Told at 0, 30, 60, 90 and 120 s, where each of the 32 workers told one a second (3,840).
    expect(told.length).toBeGreaterThanOrEqual(4);
    expect(told.length).toBeLessThanOrEqual(120_000 / RECEIVE_FAILURE_TOLD_EVERY_MS + 1);
    // Tries at 0, 1, 3, 7, 12, 17, … s: about 28 a worker in two minutes, not 120.
    expect(receives).toBeLessThanOrEqual(32 * (5 + 120_000 / RECEIVE_RETRY_MAX_MS));

    // The queue takes receives again: a worker is back within 5 s. Workers receive one at a
    // time (batches are handed over in the queue's order), so one long-polls and the rest wait
    // their turn behind it.
    failing = false;
    const before = receives;
    for (let second = 0; second < RECEIVE_RETRY_MAX_MS / 1_000; second++) {
      await settle();
      await clock.advance(1_000);
    }
    await settle();
    expect(receives - before).toBeGreaterThanOrEqual(1);
    const stopped = loop.stop();
    await clock.advance(20_000);
    await stopped;
  });
});
