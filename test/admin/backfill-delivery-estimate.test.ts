import { describe, expect, it } from 'vitest';
import {
  deliveryRateAfterRead,
  twoPhaseSeconds,
  webhooksPerRecord,
} from '../../shared/admin/backfill-delivery-estimate.ts';

describe('the delivery rate expected once the reading ends', () => {
  it('lies between the rate seen while reading and the rate the reading makes webhooks, off by the same factor from each', () => {
    const rate = deliveryRateAfterRead(100, 900);
    expect(rate).toBe(300);
    expect(rate / 100).toBeCloseTo(900 / rate, 10);
  });

  it('is the rate seen while the reading stands still or makes fewer webhooks than are delivered', () => {
    expect(deliveryRateAfterRead(250, 0)).toBe(250);
    expect(deliveryRateAfterRead(250, 100)).toBe(250);
  });

  it('is 0 while nothing is delivered', () => {
    expect(deliveryRateAfterRead(0, 800)).toBe(0);
  });

  it('counts the webhooks each record made: events per record times webhooks per event', () => {
    expect(webhooksPerRecord({ eventsPublished: 50, recordsRead: 100 }, 2)).toBe(1);
    expect(webhooksPerRecord({ eventsPublished: 0, recordsRead: 0 }, 2)).toBe(0);
  });
});

describe('the seconds the webhooks left take, in two phases', () => {
  it('delivers at the rate seen while reading, then the rest at the rate once read', () => {
    // 1,000 in the 10 s of reading, the 9,000 left at 300 a second.
    expect(twoPhaseSeconds(10_000, 10, 100, 300)).toBe(40);
  });

  it('is the rate seen alone when every webhook is delivered before the reading ends', () => {
    expect(twoPhaseSeconds(500, 10, 100, 300)).toBe(5);
  });
});
