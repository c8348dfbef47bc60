import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { BridgeError } from '../../shared/errors.ts';
import { compressEventBody, decompressEventBody } from '../../shared/webhooks/event-body-codec.ts';
import { EVENT_BODY_DICTIONARY_V1 } from '../../shared/webhooks/event-body-dictionary.ts';
import { MemoryDeliveryQueue } from '../../shared/webhooks/queue.ts';
import {
  ATTEMPT_LOG_MAX_ENTRIES,
  type Attempt,
  appendAttempt,
} from '../../shared/webhooks/store.ts';
import { changeEvent, eventIdOf } from './support/harness.ts';

describe('stored event bodies', () => {
  it('give back the exact bytes, any characters included', () => {
    const bodies = [
      JSON.stringify(changeEvent(eventIdOf(1))),
      '{"note":"Floriańska 31, 東京 🏨","escaped":"a\\"b\\\\c\\u0000","n":-0.5e-7}',
      '',
    ];
    for (const body of bodies) expect(decompressEventBody(compressEventBody(body))).toBe(body);
  });

  it('shrink a change event to a fraction of its size', () => {
    const event = changeEvent(eventIdOf(2));
    const data = event.data as Record<string, unknown>;
    const record = { Id: 'c-1', FirstName: 'Ewa', LastName: 'Rossi', Notes: 'x'.repeat(200) };
    data.current = { ...record, Email: 'new@example.com' };
    data.previous = { ...record, Email: 'old@example.com' };
    const body = JSON.stringify(event);
    expect(compressEventBody(body).length).toBeLessThan(body.length / 2);
  });

  it('read back bodies stored with a 32 KB window, and bodies larger than the window', () => {
    const body = JSON.stringify(changeEvent(eventIdOf(3)));
    // As releases before the 8 KB window stored them (zlib's default window).
    const packed = deflateRawSync(body, {
      level: 1,
      memLevel: 4,
      dictionary: EVENT_BODY_DICTIONARY_V1,
    });
    expect(decompressEventBody(Uint8Array.from([1, ...packed]))).toBe(body);
    const large = JSON.stringify({ ...changeEvent(eventIdOf(4)), note: 'ab'.repeat(20_000) });
    expect(decompressEventBody(compressEventBody(large))).toBe(large);
  });

  it('refuse bytes of an unknown format, naming it', () => {
    expect(() => decompressEventBody(Uint8Array.from([9, 1, 2]))).toThrow(BridgeError);
    expect(() => decompressEventBody(Uint8Array.from([9, 1, 2]))).toThrow(/format 9/);
  });
});

describe('folded attempt log', () => {
  const attempt = (n: number): Attempt => ({
    deliveryId: 'dlv_1',
    attempt: n,
    at: n,
    latencyMs: 1,
    responseHeaders: {},
    responseBody: '',
    outcome: 'retry',
  });

  it('keeps attempts in order, replaces a repeated number and drops the oldest beyond the bound', () => {
    let log: Attempt[] = [];
    for (let n = 1; n <= ATTEMPT_LOG_MAX_ENTRIES + 2; n++) log = appendAttempt(log, attempt(n));
    expect(log.map((a) => a.attempt)).toEqual(
      Array.from({ length: ATTEMPT_LOG_MAX_ENTRIES }, (_, i) => i + 3),
    );
    const replaced = appendAttempt(log, { ...attempt(5), status: 200, outcome: 'delivered' });
    expect(replaced).toHaveLength(ATTEMPT_LOG_MAX_ENTRIES);
    expect(replaced.find((a) => a.attempt === 5)?.status).toBe(200);
  });
});

describe('MemoryDeliveryQueue', () => {
  it('hands out messages by when they become visible, then in the order sent', async () => {
    const clock = new ManualClock(0);
    const queue = new MemoryDeliveryQueue(clock);
    queue.sendRaw('late', 5);
    queue.sendRaw('first');
    await queue.sendBatch([
      { message: { kind: 'delivery', deliveryId: 'dlv_mid' }, delaySeconds: 2 },
      { message: { kind: 'delivery', deliveryId: 'dlv_now' }, delaySeconds: 0 },
    ]);
    expect(queue.receive(10).map((m) => m.body)).toEqual([
      'first',
      JSON.stringify({ kind: 'delivery', deliveryId: 'dlv_now' }),
    ]);
    expect(queue.nextVisibleAt()).toBe(2000);
    await clock.advance(5000);
    expect(queue.receive(1).map((m) => m.body)).toEqual([
      JSON.stringify({ kind: 'delivery', deliveryId: 'dlv_mid' }),
    ]);
    expect(queue.receive(10).map((m) => m.body)).toEqual(['late']);
    expect(queue.size).toBe(0);
  });
});
