import { describe, expect, it } from 'vitest';
import type { BackfillJobView } from '../../shared/admin/backfill-view.ts';
import { deliveryPace, deliveryWaiter } from '../../shared/cli/admin/delivery-wait.ts';

/** A job read to its end with `left` webhooks to deliver. */
function readJob(
  delivered: number,
  left: number,
  more: Partial<BackfillJobView> = {},
): BackfillJobView {
  return {
    id: 'bf_1',
    startedAt: '2026-12-01T00:00:00.000Z',
    emit: true,
    fraction: 1,
    done: true,
    deliveryDone: left === 0 && (more.eventsQueued ?? 0) === 0,
    streams: [],
    recordsRead: 500,
    eventsPublished: 500,
    webhooksDelivered: delivered,
    webhooksDeadLettered: 0,
    webhooksLeft: left,
    eventsQueued: 0,
    elapsedSeconds: 5,
    finishedAt: '2026-12-01T00:00:05.000Z',
    etaSeconds: 0,
    ...more,
  };
}

describe('waiting for the webhooks of a backfill read to its end', () => {
  it('waits while they move, however long, and ends when every one is delivered', () => {
    const verdict = deliveryWaiter(60_000);
    for (let minute = 0; minute < 5; minute++) {
      expect(verdict(readJob(minute * 100, 500 - minute * 100), minute * 59_000)).toBe('wait');
    }
    expect(verdict(readJob(500, 0), 5 * 59_000)).toBe('delivered');
  });

  it('waits for queued events too, not only for deliveries made', () => {
    const verdict = deliveryWaiter(60_000);
    expect(verdict(readJob(500, 0, { eventsQueued: 3 }), 0)).toBe('wait');
  });

  it('gives up once none was delivered or dead-lettered for the wait limit', () => {
    const verdict = deliveryWaiter(60_000);
    expect(verdict(readJob(100, 400), 0)).toBe('wait');
    expect(verdict(readJob(100, 400), 59_999)).toBe('wait');
    expect(verdict(readJob(100, 400), 60_000)).toBe('stalled');
  });

  it('counts dead letters as movement', () => {
    const verdict = deliveryWaiter(60_000);
    expect(verdict(readJob(100, 400), 0)).toBe('wait');
    expect(verdict(readJob(100, 399, { webhooksDeadLettered: 1 }), 50_000)).toBe('wait');
    expect(verdict(readJob(100, 399, { webhooksDeadLettered: 1 }), 100_000)).toBe('wait');
    expect(verdict(readJob(100, 399, { webhooksDeadLettered: 1 }), 110_000)).toBe('stalled');
  });
});

describe('waiting for the webhooks of a backfill whose streams have live activity', () => {
  it('gives up when a receiver is down though live changes keep adding webhooks that wait too', () => {
    const verdict = deliveryWaiter(60_000);
    // Every 5 s a live change of the streams adds a webhook for the receiver that is down.
    for (let at = 0; at < 60_000; at += 5_000) {
      expect(verdict(readJob(0, 400 + at / 5_000), at)).toBe('wait');
    }
    expect(verdict(readJob(0, 412), 60_000)).toBe('stalled');
  });

  it('gives up when only a second, healthy receiver gets the live changes', () => {
    const verdict = deliveryWaiter(60_000);
    // Each live change gives two webhooks: the healthy receiver's delivered at once, the
    // other's waiting for its retries.
    for (let at = 0; at < 60_000; at += 5_000) {
      const changes = at / 5_000;
      expect(verdict(readJob(500 + changes, 400 + changes), at)).toBe('wait');
    }
    expect(verdict(readJob(512, 412), 60_000)).toBe('stalled');
  });

  it('does not take a live event passing through the queue for movement', () => {
    const verdict = deliveryWaiter(60_000);
    expect(verdict(readJob(100, 400), 0)).toBe('wait');
    expect(verdict(readJob(100, 400, { eventsQueued: 1 }), 30_000)).toBe('wait');
    expect(verdict(readJob(100, 401), 45_000)).toBe('wait');
    expect(verdict(readJob(100, 401), 60_000)).toBe('stalled');
  });

  it('waits while the events queued are handed to several subscriptions, each adding webhooks', () => {
    const verdict = deliveryWaiter(60_000);
    for (let minute = 0; minute < 5; minute++) {
      const handed = minute * 100;
      const job = readJob(0, handed * 2, { eventsQueued: 500 - handed });
      expect(verdict(job, minute * 59_000)).toBe('wait');
    }
  });
});

describe('the time the webhooks left take', () => {
  it('is unknown until some settle, then what is left at the pace of the last samples', () => {
    const eta = deliveryPace(30_000);
    expect(eta(readJob(0, 1000), 0)).toBeNull();
    expect(eta(readJob(100, 900), 1_000)).toBe(9);
    expect(eta(readJob(200, 800), 2_000)).toBe(8);
    expect(eta(readJob(1000, 0), 3_000)).toBe(0);
  });

  it('goes by how fast the webhooks left go down, not by live deliveries to a healthy receiver', () => {
    const eta = deliveryPace(30_000);
    // A slow receiver settles one of its 1,000 webhooks a second while live changes give a
    // healthy receiver 100 a second, each delivered at once (left as many as before).
    for (let second = 0; second <= 10; second++) {
      const left = eta(readJob(second * 101, 1000 - second), second * 1_000);
      if (second > 0) expect(left).toBe(Math.ceil((1000 - second) / 1));
    }
  });

  it('is unknown while nothing left goes down, however many live webhooks are delivered', () => {
    const eta = deliveryPace(30_000);
    expect(eta(readJob(0, 400), 0)).toBeNull();
    expect(eta(readJob(500, 400), 5_000)).toBeNull();
  });
});
