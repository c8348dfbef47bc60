import { describe, expect, it } from 'vitest';
import { lastResult } from '../../shared/cli/admin/deliveries.ts';

const delivery = {
  id: 'dlv_1',
  eventId: 'evt_1',
  subscriptionId: 'sub_1',
  status: 'pending' as const,
  attempts: 1,
  nextAttemptAt: 0,
  createdAt: 0,
  updatedAt: 0,
  version: 1,
};
const attempt = {
  deliveryId: 'dlv_1',
  attempt: 1,
  responseHeaders: {},
  responseBody: 'busy',
  at: 0,
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
