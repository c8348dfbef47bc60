import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  KeyedSerial,
  mapWithConcurrency,
  readAhead,
  settledOrAborted,
} from '../shared/concurrency.ts';

describe('readAhead', () => {
  it('starts producing the next item while the caller works on the current one', async () => {
    const log: string[] = [];
    async function* produce() {
      for (let i = 1; i <= 3; i++) {
        log.push(`produce ${i}`);
        yield i;
      }
    }
    for await (const item of readAhead(produce())) {
      log.push(`use ${item}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(log).toEqual(['produce 1', 'produce 2', 'use 1', 'produce 3', 'use 2', 'use 3']);
  });

  it('produces nothing ahead while `ahead` says no, so a caller about to stop wastes no item', async () => {
    const log: string[] = [];
    async function* produce() {
      for (let i = 1; i <= 3; i++) {
        log.push(`produce ${i}`);
        yield i;
      }
    }
    let ahead = true;
    for await (const item of readAhead(produce(), { ahead: () => ahead })) {
      log.push(`use ${item}`);
      ahead = false;
      if (item === 2) break;
    }
    // Item 2 was produced ahead while 1 was used; nothing was produced ahead of 2.
    expect(log).toEqual(['produce 1', 'produce 2', 'use 1', 'use 2']);
  });

  it('stops the source when the caller stops early, swallowing the unused item', async () => {
    let closed = false;
    async function* produce() {
      try {
        yield 1;
        throw new Error('second page failed');
      } finally {
        closed = true;
      }
    }
    for await (const item of readAhead(produce())) {
      expect(item).toBe(1);
      break;
    }
    expect(closed).toBe(true);
  });

  it('passes an error of the source on to the caller when it reaches it', async () => {
    async function* produce() {
      yield 1;
      throw new Error('boom');
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of readAhead(produce())) seen.push(item);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual([1]);
  });
});

describe('mapWithConcurrency', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([5, 1, 3, 2], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 30, 20]);
    expect(peak).toBe(2);
  });
});

describe('KeyedSerial', () => {
  it('runs the work of one key one at a time in order, and other keys beside it', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      serial.run('a', step('a1', 20)),
      serial.run('a', step('a2', 1)),
      serial.run('b', step('b1', 5)),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 start')).toBeGreaterThan(log.indexOf('a1 end'));
    expect(log.indexOf('b1 end')).toBeLessThan(log.indexOf('a1 end'));
    expect(serial.busyKeys).toBe(0);
  });

  it("runs a key's next work after a failure, which settles only its own call", async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('a', async () => {
      throw new Error('boom');
    });
    const next = serial.run('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});

describe('settledOrAborted', () => {
  it('leaves no listener on a long-lived signal once answers settle', async () => {
    const process = new AbortController();
    await settledOrAborted(Promise.resolve(1), process.signal);
    await expect(settledOrAborted(Promise.reject(new Error('no')), process.signal)).rejects.toThrow(
      'no',
    );
    expect(getEventListeners(process.signal, 'abort')).toHaveLength(0);
  });

  it('rejects at the abort with the reason given, and hands a later answer to late', async () => {
    const stop = new AbortController();
    let answer!: (value: string) => void;
    const late: string[] = [];
    const waiting = settledOrAborted(
      new Promise<string>((resolve) => {
        answer = resolve;
      }),
      stop.signal,
      { reason: () => new Error('stopping'), late: (value) => late.push(value) },
    );
    stop.abort();
    await expect(waiting).rejects.toThrow('stopping');
    answer('after');
    await new Promise((resolve) => setImmediate(resolve));
    expect(late).toEqual(['after']);
  });
});
