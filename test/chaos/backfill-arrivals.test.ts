import { describe, expect, it } from 'vitest';
import { arrivalLatency } from './arrival-latency.ts';
import { backfillArrivals } from './backfill-arrivals.ts';

const STARTED_AT = Date.UTC(2026, 11, 6, 11, 0, 0);
const arrived = (id: string, type: string, subject: string, secondsAfterStart: number) => ({
  id,
  type,
  subject,
  time: new Date(STARTED_AT + secondsAfterStart * 1000).toISOString(),
});
const backfill = { entityType: 'customer', startedAt: STARTED_AT, subjects: ['c1', 'c2'] };

describe('backfillArrivals', () => {
  it('names the subjects that got no created detected since the backfill began', () => {
    const accepted = [
      arrived('e1', 'customer.created', 'c1', -5),
      arrived('e2', 'customer.updated', 'c2', 1),
      arrived('e3', 'customer.created', 'c1', 2),
    ];
    expect(backfillArrivals(accepted, backfill).missing).toEqual(['c2']);
  });

  it("leaves out each subject's first created since the backfill began, and keeps a second one", () => {
    const accepted = [
      arrived('live', 'customer.created', 'c1', -5),
      arrived('bf1', 'customer.created', 'c1', 1),
      arrived('other', 'resource.created', 'r1', 1),
      arrived('bf1', 'customer.created', 'c1', 1),
      arrived('upd', 'customer.updated', 'c2', 2),
      arrived('bf2', 'customer.created', 'c2', 3),
      arrived('again', 'customer.created', 'c2', 4),
    ];
    const { missing, withoutRepublished } = backfillArrivals(accepted, backfill);
    expect(missing).toEqual([]);
    expect(withoutRepublished.map((change) => change.id)).toEqual([
      'live',
      'other',
      'upd',
      'again',
    ]);
  });
});

describe('arrivalLatency', () => {
  it('measures each id from its detection to its first acceptance, in seconds', () => {
    const at = (second: number) => new Date(STARTED_AT + second * 1000).toISOString();
    const latency = arrivalLatency([
      { id: 'a', time: at(0), acceptedAt: STARTED_AT + 1_000 },
      { id: 'a', time: at(0), acceptedAt: STARTED_AT + 60_000 },
      { id: 'b', time: at(0), acceptedAt: STARTED_AT + 3_000 },
    ]);
    expect(latency).toEqual({ p50: 1, p90: 3, p99: 3, max: 3 });
    expect(arrivalLatency([])).toBeUndefined();
  });
});
