import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isWithinThreeMonths } from '../../shared/connector/records/common.ts';
import { nextWindow, type WindowSettings } from '../../shared/polling/windows.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, nextRetryDelay } from '../../shared/webhooks/retry-policy.ts';
import { webhookHeaders } from '../../shared/webhooks/signing.ts';
import { jsonValue } from './json-arbitraries.ts';

const DAY_MS = 86_400_000;
const HISTORY_START_MS = Date.parse('2020-01-31T00:00:00Z');

const windowSettings: fc.Arbitrary<WindowSettings> = fc.record({
  overlapMs: fc.integer({ min: 0, max: 60_000 }),
  settleLagMs: fc.integer({ min: 0, max: 5_000 }),
  historyStartMs: fc.constant(HISTORY_START_MS),
  minWindowMs: fc.integer({ min: 1, max: 1_000 }),
});

describe('window properties', () => {
  it('leaves no gap between consecutive windows and never exceeds three months', () => {
    fc.assert(
      fc.property(
        windowSettings,
        fc.array(fc.integer({ min: 0, max: 400 * DAY_MS }), { minLength: 1, maxLength: 20 }),
        (settings, steps) => {
          let nowMs = HISTORY_START_MS + DAY_MS;
          let watermark: string | null = null;
          let coveredUntil = HISTORY_START_MS;
          for (const step of steps) {
            nowMs += step;
            const window = nextWindow(watermark, nowMs, settings);
            if (window === null) continue;
            expect(Date.parse(window.startUtc)).toBeLessThanOrEqual(coveredUntil);
            expect(isWithinThreeMonths(window.startUtc, window.endUtc)).toBe(true);
            expect(Date.parse(window.endUtc)).toBeLessThanOrEqual(nowMs - settings.settleLagMs);
            coveredUntil = Date.parse(window.endUtc);
            watermark = window.endUtc;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('retry schedule properties', () => {
  it('never shrinks: for one random draw, each delay is at least the one before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10 * DAY_MS }), { minLength: 1, maxLength: 10 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (delays, draw) => {
          const schedule = [...delays].sort((a, b) => a - b);
          const random = () => draw;
          for (let attempt = 1; attempt < schedule.length; attempt += 1) {
            const delay = nextRetryDelay(attempt, schedule, random) ?? 0;
            const after = nextRetryDelay(attempt + 1, schedule, random) ?? 0;
            expect(after).toBeGreaterThanOrEqual(delay);
          }
          expect(nextRetryDelay(schedule.length + 1, schedule, random)).toBeUndefined();
        },
      ),
    );
  });

  it('keeps every default delay within ±20% of its step, and the steps never shrink', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (draw) => {
        DEFAULT_RETRY_SCHEDULE_MS.forEach((base, index) => {
          const delay = nextRetryDelay(index + 1, DEFAULT_RETRY_SCHEDULE_MS, () => draw) ?? 0;
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
          if (index > 0) expect(base).toBeGreaterThanOrEqual(DEFAULT_RETRY_SCHEDULE_MS[index - 1]!);
        });
      }),
    );
  });
});

describe('signature properties', () => {
  const secret = fc
    .uint8Array({ minLength: 24, maxLength: 64 })
    .map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
  const id = fc.stringMatching(/^evt_[0-9a-z]{1,26}$/);
  // Receivers get JSON (the event), and the library parses the body once it has verified it.
  const body = fc
    .record({ subject: fc.string({ unit: 'grapheme', maxLength: 120 }), data: jsonValue })
    .map((value) => JSON.stringify(value));

  it('verifies with standardwebhooks for any body and secret', () => {
    fc.assert(
      fc.property(secret, id, body, (key, eventId, payload) => {
        const timestampSeconds = Math.floor(Date.now() / 1000);
        const headers = webhookHeaders({
          id: eventId,
          timestampSeconds,
          body: payload,
          secrets: [key],
        });
        expect(new Webhook(key).verify(payload, headers)).toEqual(JSON.parse(payload));
      }),
      { numRuns: 300 },
    );
  });

  it('fails verification when the body changes by one character', () => {
    fc.assert(
      fc.property(secret, id, body, (key, eventId, payload) => {
        const timestampSeconds = Math.floor(Date.now() / 1000);
        const headers = webhookHeaders({
          id: eventId,
          timestampSeconds,
          body: payload,
          secrets: [key],
        });
        expect(() => new Webhook(key).verify(`${payload} `, headers)).toThrow(/signature/i);
      }),
      { numRuns: 200 },
    );
  });
});
