import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../shared/clock.ts';
import { LINE_CHECK_MS } from '../../shared/webhooks/endpoint-lane-pump.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import {
  LINE_WAIT_LIMIT_MS,
  SLOW_FOR_MS,
  SLOW_REQUEST_MS,
} from '../../shared/webhooks/line-wait.ts';

/** Work that runs until `finish`; `deferUntil` is what it was started with, `null` before it starts. */
function work() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const held = {
    deferUntil: null as number | undefined | null,
    finish,
    run: async (deferUntil?: number) => {
      held.deferUntil = deferUntil;
      await done;
    },
  };
  return held;
}

type Work = ReturnType<typeof work>;

function endpoint(maxConcurrency: number) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const scheduler = new EndpointScheduler(clock);
  const run = (subject: string, w: Work, lane: 'live' | 'bulk' = 'live') =>
    scheduler.run('e', subject, { maxConcurrency }, w.run, lane);
  return { clock, scheduler, run };
}

// A batch waits for its deliveries; one waiting in a slow endpoint's line holds the batch, and
// with it the worker other endpoints' deliveries need. What is expected to wait too long there
// is deferred (a delayed message) to about its turn instead.
describe("deliveries waiting in a slow endpoint's line", () => {
  it('are deferred once a stuck request has made the endpoint slow for a while and their wait too long, to about their turn', async () => {
    const { clock, run } = endpoint(1);
    const stuck = work();
    const waiting = [work(), work()];
    const runs = [run('a', stuck), run('b', waiting[0]!), run('c', waiting[1]!)];
    await clock.advance(0);
    expect(stuck.deferUntil).toBeUndefined();
    const started = clock.now();
    // Slow from the check where the stuck request has run 1 s; the second in line, waiting for
    // two such requests, would wait too long from then, but a moment's slowness may be a stall.
    await clock.advance(SLOW_REQUEST_MS + LINE_CHECK_MS);
    expect(waiting[1]!.deferUntil).toBeNull();
    // Slow for SLOW_FOR_MS: deferred to half the limit before its turn.
    await clock.advance(SLOW_FOR_MS - LINE_CHECK_MS);
    let ranFor = clock.now() - started;
    expect(waiting[1]!.deferUntil).toBe(clock.now() + 2 * ranFor - LINE_WAIT_LIMIT_MS / 2);
    expect(waiting[0]!.deferUntil).toBeNull();
    // The first in line once the stuck one has run over 2 s; it comes back after the turn booked
    // for the one deferred before it, so the two do not return at once.
    await clock.advance(LINE_WAIT_LIMIT_MS - ranFor);
    expect(waiting[0]!.deferUntil).toBeNull();
    await clock.advance(LINE_CHECK_MS);
    ranFor = clock.now() - started;
    const turnOfSecond = (waiting[1]!.deferUntil as number) + LINE_WAIT_LIMIT_MS / 2;
    expect(waiting[0]!.deferUntil).toBe(turnOfSecond + ranFor - LINE_WAIT_LIMIT_MS / 2);
    for (const w of [stuck, ...waiting]) w.finish();
    await Promise.all(runs);
  });

  it('are not deferred at a fast endpoint after a stall of the event loop (real clock and HTTP)', async () => {
    const server = createServer((_, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const scheduler = new EndpointScheduler(systemClock);
    const deferred: number[] = [];
    const request = () =>
      new Promise<void>((resolve, reject) => {
        get({ host: '127.0.0.1', port, agent: false }, (response) => {
          response.resume();
          response.on('end', resolve);
        }).on('error', reject);
      });
    try {
      const runs = Array.from({ length: 200 }, (_, n) =>
        scheduler.run('fast', `s${n}`, {}, async (deferUntil) => {
          if (deferUntil !== undefined) deferred.push(deferUntil);
          else await request();
        }),
      );
      // 1.3 s of synchronous work (a large batch's JSON, a collection): every request in flight
      // then looks 1.3 s old to the first check, though the endpoint answers at once.
      const until = Date.now() + 1_300;
      while (Date.now() < until) {}
      await Promise.all(runs);
      expect(deferred).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('wait their turn at an endpoint whose line moves within the limit, however slow each answer', async () => {
    // 16 at once, each answered in 1.5 s: 16 waiting behind them wait 1.5 s.
    const { clock, run } = endpoint(16);
    const works = Array.from({ length: 32 }, work);
    const runs = works.map((w, n) => run(`s${n}`, w));
    await clock.advance(1_500);
    for (const w of works.slice(0, 16)) w.finish();
    await clock.advance(0);
    expect(works.every((w) => w.deferUntil === undefined)).toBe(true);
    await clock.advance(1_500);
    for (const w of works.slice(16)) w.finish();
    await Promise.all(runs);
  });

  it('wait as long as they must at an endpoint answering every 100 ms, however long the line', async () => {
    // 30 in line, one at a time: the last waits 3 s, but the endpoint is busy, not slow.
    const { clock, run } = endpoint(1);
    const works = Array.from({ length: 30 }, work);
    const runs = works.map((w, n) => run(`s${n}`, w));
    for (const w of works) {
      await clock.advance(0);
      expect(w.deferUntil).toBeUndefined();
      await clock.advance(100);
      w.finish();
    }
    await Promise.all(runs);
    expect(works.every((w) => w.deferUntil === undefined)).toBe(true);
  });

  it('drain at the pace of the endpoint, however far beyond the horizon the line reaches', async () => {
    // 100 deliveries, one at a time, each answered in 1.5 s: 150 s of work. A deferred one
    // comes back at its time (its delayed message) and waits in line again.
    const { clock, run } = endpoint(1);
    const deliveredAt: number[] = [];
    const pending: Promise<void>[] = [];
    const submit = (subject: string): void => {
      pending.push(
        run(subject, {
          run: async (deferUntil?: number) => {
            if (deferUntil !== undefined) {
              void clock.sleep(deferUntil - clock.now()).then(() => submit(subject));
              return;
            }
            await clock.sleep(1_500);
            deliveredAt.push(clock.now());
          },
        } as Work),
      );
    };
    for (let n = 0; n < 100; n++) submit(`s${n}`);
    const start = clock.now();
    // Ten minutes. Before, a line deferred to the horizon went round again behind its own
    // bookings: 44 of 100 delivered in ten minutes.
    for (let t = 0; t < 2_400; t++) await clock.advance(250);
    expect(deliveredAt.length).toBe(100);
    expect(Math.max(...deliveredAt) - start).toBeLessThan(200_000);
    await Promise.all(pending);
  });

  it('are deferred as soon after a Retry-After pause as before it: work that only deferred itself does not make the endpoint look fast', async () => {
    const { clock, scheduler, run } = endpoint(1);
    /** Work answered in 1.5 s when sent; `deferUntil` what it was started with. */
    const answered = () => {
      const held = {
        deferUntil: null as number | undefined | null,
        run: async (deferUntil?: number) => {
          held.deferUntil = deferUntil;
          if (deferUntil === undefined) await clock.sleep(1_500);
        },
      };
      return held;
    };
    // Three answers of 1.5 s: the endpoint is slow.
    const first = [0, 1, 2].map((n) => run(`a${n}`, answered() as Work));
    for (let t = 0; t < 20; t++) await clock.advance(250);
    await Promise.all(first);
    // A 429 pauses it; what starts meanwhile sends nothing and ends at once (it defers itself).
    scheduler.pause('e', clock.now() + 3_000);
    await Promise.all(
      Array.from({ length: 30 }, (_, n) => run(`p${n}`, { run: async () => {} } as Work)),
    );
    await clock.advance(3_000);
    // After the pause, ten more at 1.5 s each: the line is deferred at the first checks, as
    // before the pause. Before, thirty instant ends had brought its mean near 0: nothing was
    // deferred until the request in flight had itself run for a second.
    const works = Array.from({ length: 10 }, answered);
    const runs = works.map((w, n) => run(`b${n}`, w as Work));
    await clock.advance(LINE_CHECK_MS + SLOW_FOR_MS + LINE_CHECK_MS);
    expect(works.some((w) => typeof w.deferUntil === 'number')).toBe(true);
    for (let t = 0; t < 80; t++) await clock.advance(250);
    await Promise.all(runs);
  });

  it('keep one timer for the spacing of a rate-limited endpoint, not one per waiting delivery', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scheduler = new EndpointScheduler(clock);
    // A fast endpoint (never slow, so nothing defers) taking 20 a second.
    const runs = Array.from({ length: 300 }, (_, n) =>
      scheduler.run('e', `s${n}`, { ratePerSecond: 20 }, async () => {}),
    );
    for (let t = 0; t < 3; t++) await clock.advance(60);
    // The spacing and the line check. Before, each pump that met the spacing set a timer: 303.
    expect(clock.pendingSleeps).toBeLessThanOrEqual(2);
    for (let t = 0; t < 400; t++) await clock.advance(50);
    await Promise.all(runs);
  });

  it('are deferred at an endpoint whose rate limit makes the line slow', async () => {
    // One delivery a second at most: the fourth in line would wait 3 s.
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scheduler = new EndpointScheduler(clock);
    const works = Array.from({ length: 4 }, work);
    const runs = works.map((w, n) =>
      scheduler.run('e', `s${n}`, { maxConcurrency: 16, ratePerSecond: 1 }, w.run),
    );
    await clock.advance(LINE_CHECK_MS + SLOW_FOR_MS);
    expect(works[0]!.deferUntil).toBeUndefined();
    expect(typeof works[3]!.deferUntil).toBe('number');
    for (const w of works) w.finish();
    await clock.advance(5_000);
    await Promise.all(runs);
  });

  it("keep a subject's order: one in flight keeps its next waiting, and only a subject's first defers", async () => {
    const { clock, run } = endpoint(1);
    const [stuck, sameSubject, first, second] = [work(), work(), work(), work()];
    const runs = [run('a', stuck), run('a', sameSubject), run('b', first), run('b', second)];
    await clock.advance(2 * LINE_WAIT_LIMIT_MS);
    // 'a' is in flight: its next one keeps its place. Of 'b', only the first defers now.
    expect(sameSubject.deferUntil).toBeNull();
    expect(typeof first.deferUntil).toBe('number');
    expect(second.deferUntil).toBeNull();
    first.finish();
    await runs[2];
    await clock.advance(LINE_CHECK_MS);
    // Then the next of 'b' (it finds the first waiting, as behind a retry, and follows it).
    expect(typeof second.deferUntil).toBe('number');
    second.finish();
    stuck.finish();
    await clock.advance(0);
    expect(sameSubject.deferUntil).toBeUndefined();
    sameSubject.finish();
    await Promise.all(runs);
  });
});
