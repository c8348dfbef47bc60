import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../shared/clock.ts';
import { decideOutcome } from '../../shared/webhooks/delivery-outcome.ts';
import type { HttpAttemptResult } from '../../shared/webhooks/http-sender.ts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  ENDPOINT_PAUSE_MAX_MS,
  nextRetryDelay,
} from '../../shared/webhooks/retry-policy.ts';

const NOW = Date.UTC(2026, 0, 1);
const response = (status: number, headers: Record<string, string> = {}): HttpAttemptResult => ({
  kind: 'response',
  status,
  headers,
  body: '',
  latencyMs: 5,
});
const context = (attemptsMade: number) => ({
  attemptsMade,
  schedule: [1000, 2000],
  nowMs: NOW,
  random: () => 0.5,
  maxPauseMs: 60_000,
});

describe('retry policy', () => {
  it('follows the default schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h within ±20%', () => {
    const random = seededRandom(3);
    DEFAULT_RETRY_SCHEDULE_MS.forEach((base, index) => {
      for (let i = 0; i < 50; i++) {
        const delay = nextRetryDelay(index + 1, DEFAULT_RETRY_SCHEDULE_MS, random)!;
        expect(delay).toBeGreaterThanOrEqual(base * 0.8);
        expect(delay).toBeLessThanOrEqual(base * 1.2);
      }
    });
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
  });

  it('runs out after the last step of the schedule', () => {
    expect(nextRetryDelay(8, DEFAULT_RETRY_SCHEDULE_MS, () => 0)).toBeUndefined();
    expect(nextRetryDelay(1, [100], () => 0)).toBe(80);
    expect(nextRetryDelay(1, [100], () => 0.999999)).toBe(120);
  });
});

describe('delivery outcome', () => {
  it('is delivered on any 2xx', () => {
    expect(decideOutcome(response(200), context(1))).toEqual({ kind: 'delivered' });
    expect(decideOutcome(response(204), context(1))).toEqual({ kind: 'delivered' });
  });

  it('is gone on 410', () => {
    expect(decideOutcome(response(410), context(1))).toEqual({ kind: 'gone' });
  });

  it('retries other statuses, redirects and failures on the schedule', () => {
    for (const result of [
      response(500),
      response(404),
      response(301, { location: 'https://elsewhere.example' }),
      { kind: 'error', error: 'timeout', message: 'slow', latencyMs: 1 } as const,
      { kind: 'error', error: 'network', message: 'reset', latencyMs: 1 } as const,
    ]) {
      expect(decideOutcome(result, context(1))).toEqual({ kind: 'retry', at: NOW + 1000 });
    }
    expect(decideOutcome(response(500), context(2))).toEqual({ kind: 'retry', at: NOW + 2000 });
  });

  it('pauses the endpoint on 429 or 503 with Retry-After in seconds or as an HTTP date', () => {
    expect(decideOutcome(response(429, { 'retry-after': '7' }), context(1))).toEqual({
      kind: 'retry',
      at: NOW + 7000,
      pauseUntil: NOW + 7000,
    });
    const date = new Date(NOW + 30_000).toUTCString();
    expect(decideOutcome(response(503, { 'retry-after': date }), context(1))).toEqual({
      kind: 'retry',
      at: NOW + 30_000,
      pauseUntil: NOW + 30_000,
    });
  });

  it("measures a Retry-After date on the receiver's clock, from its Date header", () => {
    // The receiver's clock is 20 s ahead of ours: its pause ends 30 s from now, not 50 s.
    const headers = {
      'retry-after': new Date(NOW + 50_000).toUTCString(),
      date: new Date(NOW + 20_000).toUTCString(),
    };
    expect(decideOutcome(response(503, headers), context(1))).toEqual({
      kind: 'retry',
      at: NOW + 30_000,
      pauseUntil: NOW + 30_000,
    });
  });

  it('clamps a huge Retry-After to the maximum pause and ignores an unreadable one', () => {
    expect(decideOutcome(response(429, { 'retry-after': '999999' }), context(1))).toMatchObject({
      pauseUntil: NOW + 60_000,
    });
    expect(decideOutcome(response(429, { 'retry-after': 'soon' }), context(1))).toEqual({
      kind: 'retry',
      at: NOW + 1000,
    });
  });

  it('takes a Retry-After of 0 or a date past as no pause, and one of 10 years as the longest pause', () => {
    const past = new Date(NOW - 3_600_000).toUTCString();
    for (const value of ['0', past]) {
      expect(decideOutcome(response(429, { 'retry-after': value }), context(1))).toEqual({
        kind: 'retry',
        at: NOW + 1000,
      });
    }
    // The real bound (the default schedule's span, 27 h 35 min 5 s), far below setTimeout's
    // 2^31-1 ms: nothing overflows into firing at once.
    const span = 99_305_000;
    const tenYears = 10 * 365 * 86_400;
    const inTenYears = new Date(NOW + tenYears * 1000).toUTCString();
    for (const value of [String(tenYears), inTenYears, '9'.repeat(400)]) {
      expect(
        decideOutcome(response(503, { 'retry-after': value }), {
          ...context(1),
          maxPauseMs: ENDPOINT_PAUSE_MAX_MS,
        }),
      ).toEqual({ kind: 'retry', at: NOW + span, pauseUntil: NOW + span });
    }
    expect(ENDPOINT_PAUSE_MAX_MS).toBe(span);
    expect(ENDPOINT_PAUSE_MAX_MS).toBeLessThan(2 ** 31 - 1);
  });

  it('ignores a malformed Retry-After that only looks like a date to a lenient parser', () => {
    for (const value of ['10 20 30', 'retry 2030', 'Dec 2030', '-5', '+60']) {
      expect(decideOutcome(response(429, { 'retry-after': value }), context(1))).toEqual({
        kind: 'retry',
        at: NOW + 1000,
      });
    }
  });

  it('rejects when the schedule is used up or the address is refused', () => {
    expect(decideOutcome(response(500), context(3))).toEqual({
      kind: 'rejected',
      reason: 'no success after 3 attempts',
    });
    // A last attempt answered 429 with Retry-After still pauses the endpoint.
    expect(decideOutcome(response(429, { 'retry-after': '7' }), context(3))).toEqual({
      kind: 'rejected',
      reason: 'no success after 3 attempts',
      pauseUntil: NOW + 7000,
    });
    const blocked = {
      kind: 'error',
      error: 'blocked',
      message: '127.0.0.1',
      latencyMs: 0,
    } as const;
    expect(decideOutcome(blocked, context(1)).kind).toBe('rejected');
  });
});
