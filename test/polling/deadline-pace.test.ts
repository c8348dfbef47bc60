import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { deadlinePace, pollPace } from '../../shared/polling/deadline-pace.ts';

describe('deadlinePace', () => {
  const pace = (deadline?: number) => {
    const clock = new ManualClock(0);
    return { clock, pace: deadlinePace({ clock, deadline }) };
  };

  it('fits a page only when the longest a page took still ends before the deadline', async () => {
    const { clock, pace: paced } = pace(3_500);
    paced.asking();
    await clock.advance(1_000);
    paced.arrived();
    expect(paced.nextFits()).toBe(true);
    await clock.advance(400);
    paced.arrived();
    await clock.advance(1_000);
    // 2,400 + the longest page (1,000) < 3,500; at 2,600 it would end past the deadline.
    expect(paced.nextFits()).toBe(true);
    await clock.advance(200);
    expect(paced.nextFits()).toBe(false);
  });

  it('counts no wait before the request was sent (the budget, a Retry-After) as page time', async () => {
    const { clock, pace: paced } = pace(70_000);
    paced.asking();
    // A 429's Retry-After of 60 s, then an answer in one second.
    await clock.advance(60_000);
    const sentAt = clock.now();
    await clock.advance(1_000);
    paced.arrived(sentAt);
    // 61 s + one second < 70 s: the pause is not taken for how long a page takes.
    await clock.advance(7_900);
    expect(paced.nextFits()).toBe(true);
    await clock.advance(200);
    expect(paced.nextFits()).toBe(false);
  });

  it('judges several pages together: all of them must be in hand before the deadline', async () => {
    const { clock, pace: paced } = pace(10_000);
    paced.asking();
    await clock.advance(2_000);
    paced.arrived();
    expect(paced.nextFits(3)).toBe(true);
    expect(paced.nextFits(4)).toBe(false);
  });

  it('always fits without a deadline (the local runtime reads ahead as before)', async () => {
    const { clock, pace: paced } = pace();
    paced.asking();
    await clock.advance(60_000);
    paced.arrived();
    expect(paced.nextFits()).toBe(true);
    expect(paced.nextFits(1_000)).toBe(true);
  });

  it("is the job's when the deps carry one, so streams polled later judge by earlier pages", async () => {
    const clock = new ManualClock(0);
    const shared = deadlinePace({ clock, deadline: 1_500 });
    shared.asking();
    await clock.advance(1_000);
    shared.arrived();
    expect(pollPace({ clock, deadline: 1_500, pace: shared }).nextFits()).toBe(false);
    // A run without the job's knows nothing of its pages yet.
    expect(pollPace({ clock, deadline: 1_500 }).nextFits()).toBe(true);
  });
});
