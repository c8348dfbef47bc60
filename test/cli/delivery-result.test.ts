import { describe, expect, it } from 'vitest';
import { lastResult, nextAttempt } from '../../shared/cli/admin/deliveries.ts';

const delivery = {
  id: 'dlv_1',
  eventId: 'evt_1',
  subscriptionId: 'sub_1',
  status: 'pending' as const,
  attempts: 1,
  nextAttemptAt: '1970-01-01T00:00:00.000Z',
  createdAt: '1970-01-01T00:00:00.000Z',
  updatedAt: '1970-01-01T00:00:00.000Z',
  version: 1,
};
const attempt = {
  deliveryId: 'dlv_1',
  attempt: 1,
  responseHeaders: {},
  responseBody: 'busy',
  at: '1970-01-01T00:00:00.000Z',
  status: 503,
  latencyMs: 12,
  outcome: 'retry' as const,
};

describe('the LAST RESULT of deliveries list', () => {
  it('is the last attempt while the delivery is pending or delivered', () => {
    expect(lastResult(delivery, [attempt])).toBe('503 retry');
    expect(lastResult(delivery, [])).toBe('-');
  });

  it('says why a dead letter died, which its last attempt need not', () => {
    const dead = { ...delivery, status: 'dead' as const, deadReason: 'subscription disabled' };
    expect(lastResult(dead, [attempt])).toBe('503 retry, dead: subscription disabled');
    expect(lastResult(dead, [])).toBe('dead: subscription disabled');
  });
});

describe('the NEXT ATTEMPT of deliveries list', () => {
  it('is when a pending delivery is sent next, and nothing for one delivered or dead', () => {
    const at = new Date(Date.UTC(2026, 0, 1, 12, 30, 5)).toISOString();
    expect(nextAttempt({ ...delivery, nextAttemptAt: at })).toBe('2026-01-01 12:30:05');
    expect(nextAttempt({ ...delivery, status: 'delivered', nextAttemptAt: at })).toBe('-');
    expect(nextAttempt({ ...delivery, status: 'dead', nextAttemptAt: at })).toBe('-');
  });
});
