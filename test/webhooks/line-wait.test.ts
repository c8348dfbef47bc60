import { describe, expect, it } from 'vitest';
import {
  deferralHorizonMs,
  LINE_DEFER_FIRST_MAX_MS,
  LINE_DEFER_MAX_MS,
  LINE_WAIT_LIMIT_MS,
  type LineSlot,
  nextMeanMs,
  planLineDeferrals,
  SLOW_REQUEST_MS,
  slowLineStepMs,
} from '../../shared/webhooks/line-wait.ts';

const NOW = 1_000_000;
const live = (subject: string): LineSlot => ({ subject, lane: 'live' });
const bulk = (subject: string): LineSlot => ({ subject, lane: 'bulk' });
const subjects = (count: number, make = live) =>
  Array.from({ length: count }, (_, n) => make(`s${n}`));

describe('how long a slow endpoint takes a delivery', () => {
  const input = { meanMs: 2_000, inFlightSince: [], now: NOW, concurrency: 16, minGapMs: 0 };

  it('is its mean request time shared by the requests that run at once', () => {
    expect(slowLineStepMs(input)).toBe(125);
  });

  it('grows with the median request in flight when nothing comes back (a stuck endpoint)', () => {
    const inFlightSince = [NOW - 9_000, NOW - 8_000, NOW - 7_000];
    expect(slowLineStepMs({ ...input, meanMs: 20, inFlightSince, concurrency: 4 })).toBe(2_000);
  });

  it('does not grow for one hung request among many answering fast: the endpoint is not slow', () => {
    const inFlightSince = [NOW - 10_000, ...Array.from({ length: 15 }, () => NOW - 5)];
    expect(slowLineStepMs({ ...input, meanMs: 20, inFlightSince })).toBeUndefined();
  });

  it('is nothing for an endpoint answering within a second, however long its line', () => {
    expect(slowLineStepMs({ ...input, meanMs: SLOW_REQUEST_MS - 1 })).toBeUndefined();
    expect(slowLineStepMs({ ...input, meanMs: undefined })).toBeUndefined();
  });

  it("is at least the gap the subscription's rate limit sets, which alone can make it slow", () => {
    // 10 a second over 16 slots: each slot sends every 1.6 s.
    expect(slowLineStepMs({ ...input, meanMs: 10, minGapMs: 100 })).toBe(100);
  });

  it('averages request times, recent ones weighing most', () => {
    expect(nextMeanMs(undefined, 100)).toBe(100);
    expect(nextMeanMs(100, 600)).toBe(200);
  });
});

describe("the deliveries deferred for their place in an endpoint's line", () => {
  const plan = (slots: LineSlot[], step: number, busy: string[] = [], bookedUntil = 0) =>
    planLineDeferrals({
      slots,
      busySubjects: new Set(busy),
      stepMs: step,
      booked: { live: bookedUntil, bulk: 0 },
      horizonMs: LINE_DEFER_MAX_MS,
      now: NOW,
    });

  it('are none while the whole line is expected to move within the limit', () => {
    // 1,000 waiting at an endpoint taking a delivery every millisecond: a second's wait.
    expect(plan(subjects(1_000), 1).deferrals).toEqual([]);
  });

  it('are those expected to wait past the limit, each until shortly before its turn', () => {
    // One delivery every 500 ms: four wait at most 2 s; the fifth and sixth are deferred.
    const { deferrals, booked } = plan(subjects(6), 500);
    expect(deferrals).toEqual([
      { index: 4, until: NOW + 5 * 500 - LINE_WAIT_LIMIT_MS / 2 },
      { index: 5, until: NOW + 6 * 500 - LINE_WAIT_LIMIT_MS / 2 },
    ]);
    expect(booked).toEqual({ live: NOW + 6 * 500, bulk: 0 });
  });

  it('come back after the turns of those deferred before them', () => {
    const booked = NOW + 60_000;
    const { deferrals } = plan(subjects(6), 500, [], booked);
    expect(deferrals.map((d) => d.until)).toEqual([
      booked + 500 - LINE_WAIT_LIMIT_MS / 2,
      booked + 1_000 - LINE_WAIT_LIMIT_MS / 2,
    ]);
  });

  it('book live work apart from bulk work deferred before it', () => {
    const slots = [live('l1'), live('l2'), live('l3'), live('l4'), live('l5')];
    const { deferrals } = planLineDeferrals({
      slots,
      busySubjects: new Set(),
      stepMs: 500,
      booked: { live: 0, bulk: NOW + 600_000 },
      horizonMs: LINE_DEFER_MAX_MS,
      now: NOW,
    });
    expect(deferrals).toEqual([{ index: 4, until: NOW + 5 * 500 - LINE_WAIT_LIMIT_MS / 2 }]);
  });

  it('count live work before bulk work, as the line starts it', () => {
    const slots = [...subjects(4, bulk), live('l1'), live('l2')];
    const { deferrals } = plan(
      slots.map((s, n) => ({ ...s, subject: `x${n}` })),
      500,
    );
    // The two live ones go first; the last two bulk ones are past the limit.
    expect(deferrals.map((d) => d.index)).toEqual([2, 3]);
  });

  it("defer only a subject's first waiting delivery, and none of a subject in flight", () => {
    const slots = [live('a'), live('b'), live('c'), live('d'), live('e'), live('e'), live('f')];
    const { deferrals } = plan(slots, 500, ['f']);
    expect(deferrals.map((d) => d.index)).toEqual([4]);
  });

  it("take a subject's first slot in the line's own order, though live slots count first", () => {
    // A subject's bulk delivery came back from a deferral before its live change was detected:
    // the bulk one goes first at the endpoint, so only it may be deferred, never the live one
    // ahead of it (it would then wait behind the live one: the subject's order inverted).
    const slots = [bulk('s'), live('a'), live('b'), live('c'), live('d'), live('s'), live('e')];
    const { deferrals } = plan(slots, 500, ['s']);
    // `s` is in flight: neither of its slots is deferred; `d` and `e` are past the limit.
    expect(deferrals.map((d) => d.index)).toEqual([4, 6]);
  });

  it('count the bulk work of a subject with live work waiting among the live work, in line order', () => {
    // The line starts `s`'s bulk delivery ahead of its live one (see nextSlot): it is the first
    // of the live group, so not deferred; the live ones behind it take the later turns.
    const slots = [bulk('x'), bulk('s'), live('a'), live('b'), live('c'), live('d'), live('s')];
    const { deferrals } = plan(slots, 500);
    expect(deferrals.map((d) => d.index)).toEqual([5, 0]);
  });

  it('come back from the horizon spread over their turns from then, not behind their own bookings', () => {
    // 100 waiting, one moving every second: about 70 are deferred to the 30 s horizon.
    const slots = subjects(100);
    const first = planLineDeferrals({
      slots,
      busySubjects: new Set(),
      stepMs: 1_000,
      booked: { live: 0, bulk: 0 },
      horizonMs: 30_000,
      now: 0,
    });
    const returning = first.deferrals.filter((d) => d.until === 30_000).map((d) => slots[d.index]!);
    expect(returning.length).toBeGreaterThan(60);
    // At the horizon, those deferred before them have gone: they are now the front of the line.
    const second = planLineDeferrals({
      slots: returning,
      busySubjects: new Set(),
      stepMs: 1_000,
      booked: first.booked,
      horizonMs: 30_000,
      now: 30_000,
    });
    // The first two wait in line; the next come back a second apart. Before, every one went
    // to the horizon again (booked after the turns they would have had): the line barely moved.
    expect(second.deferrals[0]!.until).toBe(30_000 + 3 * 1_000 - LINE_WAIT_LIMIT_MS / 2);
    expect(second.deferrals.filter((d) => d.until < 60_000).length).toBeGreaterThan(25);
  });

  it('are deferred no further than the horizon', () => {
    const { deferrals } = plan(subjects(10), 60_000);
    expect(Math.max(...deferrals.map((d) => d.until))).toBe(NOW + LINE_DEFER_MAX_MS);
  });

  it('reach half a minute ahead at first, and as far as the endpoint has been slow, up to five minutes', () => {
    expect(deferralHorizonMs(0)).toBe(LINE_DEFER_FIRST_MAX_MS);
    expect(deferralHorizonMs(120_000)).toBe(120_000);
    expect(deferralHorizonMs(3_600_000)).toBe(LINE_DEFER_MAX_MS);
  });
});
