import { describe, expect, it } from 'vitest';
import type { BackfillJobView } from '../../shared/admin/backfill-view.ts';
import { BackfillJobViewSchema } from '../../shared/admin/schemas.ts';
import {
  progressLines,
  progressRenderer,
  progressSummary,
} from '../../shared/cli/admin/backfill-progress.ts';
import { COLOR_PALETTE, PLAIN_PALETTE } from '../../shared/local/terminal.ts';

type StreamView = BackfillJobView['streams'][number];

function stream(streamId: string, fraction: number, more: Partial<StreamView> = {}): StreamView {
  return {
    streamId,
    entityType: streamId.split(':')[1] ?? 'customer',
    fraction,
    done: fraction >= 1,
    watermark: null,
    parked: false,
    lastError: null,
    endedBy: null,
    recordsRead: 0,
    eventsPublished: 0,
    webhooksDelivered: 0,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
    ...more,
  };
}

function job(more: Partial<BackfillJobView> = {}): BackfillJobView {
  const streams = more.streams ?? [stream('main:customer', 0.4), stream('main:resource', 0.42)];
  return {
    id: 'bf_1',
    startedAt: '2026-03-01T00:00:00.000Z',
    emit: true,
    fraction: streams.reduce((sum, s) => sum + s.fraction, 0) / streams.length,
    done: streams.every((s) => s.done),
    deliveryDone: streams.every((s) => s.done),
    streams,
    recordsRead: 41_200,
    eventsPublished: 41_200,
    webhooksDelivered: 39_870,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
    elapsedSeconds: 8,
    finishedAt: null,
    etaSeconds: 12,
    ...more,
  };
}

function capture(mode: 'tty' | 'plain' | 'json') {
  const out: string[] = [];
  const show = progressRenderer(mode, (text) => out.push(text), PLAIN_PALETTE);
  return { out, show };
}

describe('the progress summary', () => {
  it('says records read, events published, webhooks delivered and the time left', () => {
    expect(progressSummary(job())).toBe(
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · ~12 s left',
    );
  });

  it('says one record, event or webhook in the singular', () => {
    expect(progressSummary(job({ recordsRead: 1, eventsPublished: 1, webhooksDelivered: 1 }))).toBe(
      'read 1 record · published 1 event · delivered 1 webhook · ~12 s left',
    );
  });

  it('says the time left is being estimated while unknown, and how long it took once done', () => {
    expect(progressSummary(job({ etaSeconds: null }))).toMatch(/· estimating time left$/);
    expect(progressSummary(job({ etaSeconds: 250 }))).toMatch(/· ~4 min left$/);
    const done = job({ streams: [stream('main:customer', 1)], elapsedSeconds: 95, etaSeconds: 0 });
    expect(progressSummary(done)).toMatch(/· done in 2 min$/);
  });
});

describe('the TTY drawing', () => {
  it('has a bar per stream, the total bar and the figures', () => {
    expect(progressLines(job(), PLAIN_PALETTE)).toEqual([
      '[████████████░░░░░░░░░░░░░░░░░░]  40%  main:customer',
      '[█████████████░░░░░░░░░░░░░░░░░]  42%  main:resource',
      '[████████████░░░░░░░░░░░░░░░░░░]  41%  total',
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · ~12 s left',
    ]);
  });

  it('says how many streams stand where, instead of their bars, for an answer that left them out', () => {
    const totals = job({
      streams: [],
      streamCounts: { total: 6_500, reading: 5_190, parked: 10, ended: 0, caughtUp: 1_300 },
      streamsLeftOut: 6_500,
      fraction: 0.41,
      done: false,
      deliveryDone: false,
    });
    expect(progressLines(totals, PLAIN_PALETTE)).toEqual([
      '6,500 streams: 5,190 reading, 10 parked, 1,300 caught up',
      '[████████████░░░░░░░░░░░░░░░░░░]  41%  total',
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · ~12 s left',
    ]);
  });

  it("shows the bridge's estimate of a job whose answer lists no stream, measured over each of them", () => {
    const { out, show } = capture('plain');
    // From the totals alone, 80 % of the range and nothing read would say nothing; the bridge
    // estimated each stream (a pass's first sync told its records).
    show(
      job({
        streams: [],
        streamCounts: { total: 6_500, reading: 6_500, parked: 0, ended: 0, caughtUp: 0 },
        streamsLeftOut: 6_500,
        fraction: 0.2,
        rangeFraction: 0.8,
        readFraction: 0.25,
        readEtaSeconds: 30,
        deliveryEtaSeconds: 45,
        etaSeconds: 45,
        done: false,
        deliveryDone: false,
      }),
    );
    expect(out.join('\n').split('\n').slice(-1)).toEqual([
      'total 20%: 6,500 streams: 6,500 reading · read 41,200 records · published 41,200 events · delivered 39,870 webhooks · ~45 s left',
    ]);
  });

  it('marks a parked stream in red and a finished one in green', () => {
    const lines = progressLines(
      job({
        streams: [stream('main:customer', 0.2, { parked: true }), stream('main:resource', 1)],
      }),
      COLOR_PALETTE,
    );
    expect(lines[0]).toBe(
      `\u001b[31m${'[██████░░░░░░░░░░░░░░░░░░░░░░░░]  20%  main:customer'}  parked\u001b[39m`,
    );
    expect(lines[1]).toBe(
      `\u001b[32m${'[██████████████████████████████] 100%  main:resource'}\u001b[39m`,
    );
  });

  it('redraws in place: each later drawing moves up over the lines of the one before', () => {
    const { out, show } = capture('tty');
    show(job());
    show(job({ recordsRead: 50_000 }));
    expect(out[0]?.startsWith('\u001b[2K[')).toBe(true);
    expect(out[1]?.startsWith('\u001b[4A\u001b[J\u001b[2K[')).toBe(true);
    expect(out[1]).toContain('read 50,000 records');
  });
});

/**
 * The rows a terminal of `columns` shows after `writes` (each ended by a newline, as io.out
 * does): it wraps a line at the right edge, moves up on ESC[nA, clears a row on ESC[2K and
 * the rows below on ESC[J (from the start of a row), and ignores colours. A model of an xterm for the drawing's escapes, not the renderer's own count.
 */
function screenAfter(writes: readonly string[], columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const text = writes.map((w) => `${w}\n`).join('');
  for (let i = 0; i < text.length; ) {
    if (text.startsWith('\u001b[', i)) {
      let end = i + 2;
      while (!/[A-Za-z]/.test(text[end] ?? 'z')) end++;
      const count = Number(text.slice(i + 2, end).split(';')[0] || 1);
      const command = text[end];
      if (command === 'A') row = Math.max(0, row - count);
      if (command === 'K') rows[row] = [];
      if (command === 'J') rows.splice(row);
      i = end + 1;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(i) ?? 0);
    i += char.length;
    if (char === '\n') {
      row++;
      col = 0;
    } else {
      if (col === columns) {
        row++;
        col = 0;
      }
      const line = rows[row] ?? [];
      line[col++] = char;
      rows[row] = line;
    }
    while (rows.length <= row) rows.push([]);
  }
  return rows.map((r) => r.join('')).filter((r) => r.length > 0);
}

describe('the TTY drawing of a failing stream', () => {
  it('marks a stream whose last poll failed with its error, until a poll succeeds', () => {
    const failing = stream('main:customer', 0.4, {
      lastError: 'customers/getAll failed (timeout)',
    });
    const lines = progressLines(job({ streams: [failing] }), PLAIN_PALETTE);
    expect(lines[0]).toBe(
      '[████████████░░░░░░░░░░░░░░░░░░]  40%  main:customer  failing, retrying: customers/getAll failed (timeout)',
    );
    const parked = { ...failing, parked: true };
    expect(progressLines(job({ streams: [parked] }), PLAIN_PALETTE)[0]).toMatch(/ {2}parked$/);
  });
});

describe('the TTY drawing on a terminal narrower than its lines', () => {
  it('redraws in place on 80 columns, where its figures line wraps', () => {
    const out: string[] = [];
    const show = progressRenderer(
      'tty',
      (text) => out.push(text),
      PLAIN_PALETTE,
      () => 80,
    );
    show(job({ etaSeconds: null }));
    show(job({ recordsRead: 50_000 }));
    show(job({ recordsRead: 60_000 }));
    // Its streams read no record yet: their share of the records is unknown, as is the time.
    const summary = progressSummary(job({ recordsRead: 60_000, etaSeconds: null }));
    expect(summary.length).toBeGreaterThan(80);
    // The last drawing alone: two bars, the total, the figures over two rows; no stale copy.
    expect(screenAfter(out, 80)).toEqual([
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:resource',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  total',
      summary.slice(0, 80),
      summary.slice(80),
    ]);
  });

  it('leaves no row of a longer drawing behind when the figures get shorter', () => {
    const out: string[] = [];
    const show = progressRenderer(
      'tty',
      (text) => out.push(text),
      PLAIN_PALETTE,
      () => 80,
    );
    show(job({ etaSeconds: null }));
    const short = { recordsRead: 1, eventsPublished: 1, webhooksDelivered: 1 };
    show(job(short));
    expect(screenAfter(out, 80)).toHaveLength(4);
    expect(screenAfter(out, 80)[3]).toBe(progressSummary(job({ ...short, etaSeconds: null })));
  });
});

describe('plain progress lines', () => {
  it('prints streams as their records are read, and the time their reading and deliveries take', () => {
    let now = 0;
    const out: string[] = [];
    const show = progressRenderer(
      'plain',
      (text) => out.push(text),
      PLAIN_PALETTE,
      undefined,
      () => now,
    );
    /** The job at `seconds`: `records` read and published, `delivered` of them delivered. */
    const sample = (seconds: number, fraction: number, records: number, delivered: number) => {
      now = seconds * 1000;
      const figures = {
        recordsRead: records,
        eventsPublished: records,
        webhooksDelivered: delivered,
        webhooksLeft: records - delivered,
      };
      const done = fraction >= 1;
      show(
        job({
          streams: [stream('main:customer', fraction, figures)],
          ...figures,
          elapsedSeconds: seconds,
          etaSeconds: done ? 0 : 1,
          deliveryDone: false,
        }),
      );
    };
    sample(0, 0, 0, 0);
    // Years of history with no record go by: 80 % of the range, no record read.
    sample(1, 0.8, 0, 0);
    // The first window holding records ended: what it held foretells nothing yet.
    sample(3, 0.85, 20_000, 5_000);
    // The next held 25,000 records in 0.05 of the range: the 0.1 left holds 50,000.
    sample(6, 0.9, 45_000, 9_000);
    sample(7, 1, 100_000, 12_000);
    expect(out.join('\n').split('\n')).toEqual([
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
      'total estimating…: read 0 records · published 0 events · delivered 0 webhooks · estimating time left',
      '[██████████████░░░░░░░░░░░░░░░░]  47%  main:customer',
      // Reading: 50,000 records at 7,500/s, 7 s; delivering: the 36,000 left and the 50,000
      // those records publish (one each so far), 10,500 in those 7 s at 1,500/s, the rest at
      // √(1,500 × 7,500) ≈ 3,354/s once nothing reads: 30 s. Of all the work, 9,000 webhooks of
      // 95,000 are done.
      'total 9%: read 45,000 records · published 45,000 events · delivered 9,000 webhooks · ~30 s left',
      '[██████████████████████████████] 100%  main:customer',
      // 88,000 left at the 12,000 delivered in 7 s.
      'total 12%: read 100,000 records · published 100,000 events · delivered 12,000 webhooks · read done, 88,000 webhooks left to deliver · ~52 s left',
    ]);
  });

  it('says when a stream parks, and when it reads again, as the TTY drawing does', () => {
    const { out, show } = capture('plain');
    show(job({ streams: [stream('main:customer', 0.3)], elapsedSeconds: 0 }));
    // Parked where it was: it moved no step, but the reader learns it waits for an operator.
    show(job({ streams: [stream('main:customer', 0.3, { parked: true })], elapsedSeconds: 1 }));
    show(job({ streams: [stream('main:customer', 0.3, { parked: true })], elapsedSeconds: 2 }));
    show(job({ streams: [stream('main:customer', 0.32)], elapsedSeconds: 3 }));
    const bars = out
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('['));
    // No record read: how much of its records is read is unknown, shown as none.
    expect(bars).toEqual([
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer  parked',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
    ]);
  });

  it('says when a stream fails its polls and retries, once, not a silent bar at a standstill', () => {
    const { out, show } = capture('plain');
    const failing = (requestId: string) =>
      stream('main:customer', 0, {
        lastError: `customers/getAll failed (internal, HTTP 500): Unexpected failure on the server side. (RequestId ${requestId})`,
      });
    show(job({ streams: [stream('main:customer', 0)], elapsedSeconds: 0 }));
    show(job({ streams: [failing('r-1')], elapsedSeconds: 1 }));
    // The same failure again (another request id) says nothing new.
    show(job({ streams: [failing('r-2')], elapsedSeconds: 2 }));
    // Reading again: the error stays on the stream until its pass has read everything.
    show(job({ streams: [{ ...failing('r-2'), recordsRead: 1_000 }], elapsedSeconds: 3 }));
    const bars = out
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(bars).toEqual([
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer  failing, retrying: customers/getAll failed (internal, HTTP 500): Unexpected failure on the server side. (RequestId r-1)',
      '[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:customer',
    ]);
  });

  it('prints the figures every 10 s of the job even while no stream moves a step', () => {
    const { out, show } = capture('plain');
    const at = (elapsedSeconds: number) =>
      show(job({ streams: [stream('main:customer', 0.3)], elapsedSeconds }));
    at(0);
    at(5);
    at(10);
    at(19);
    at(20);
    expect(out.filter((text) => text.includes('total'))).toHaveLength(3);
  });
});

describe('--json progress', () => {
  it('prints each sample as one JSON line that parses back to the job view', () => {
    const { out, show } = capture('json');
    show(job());
    show(job({ streams: [stream('main:customer', 1)], etaSeconds: 0 }));
    expect(out).toHaveLength(2);
    for (const line of out) expect(line).not.toContain('\n');
    const parsed = out.map((line) => BackfillJobViewSchema.parse(JSON.parse(line)));
    expect(parsed[0]).toEqual(job());
    expect(parsed[1]).toMatchObject({ done: true, etaSeconds: 0, webhooksDelivered: 39_870 });
    // The estimate is added beside the view's fields: unknown until its rates are measured.
    expect(JSON.parse(out[0] as string).estimate).toEqual({
      fraction: null,
      readFraction: null,
      readSecondsLeft: null,
      deliverySecondsLeft: null,
      secondsLeft: null,
      deliveryRateAfterRead: null,
    });
  });
});

describe('progress once every stream is read and webhooks are left', () => {
  const read = (more: Partial<BackfillJobView> = {}) =>
    job({
      streams: [stream('main:customer', 1)],
      etaSeconds: 0,
      elapsedSeconds: 30,
      deliveryDone: false,
      webhooksLeft: 1_330,
      ...more,
    });

  it('says the read is done and how many webhooks are left to deliver, not done', () => {
    expect(progressSummary(read(), 12)).toBe(
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · read done, 1,330 webhooks left to deliver · ~12 s left',
    );
    // The events queued are still to be delivered, as webhooks to each subscription taking them.
    expect(progressSummary(read({ eventsQueued: 200, webhooksToDeliver: 1_730 }))).toBe(
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · read done, about 1,730 webhooks left to deliver, counting those of 200 queued events · estimating time left',
    );
    // A bridge that answers no webhooksToDeliver: counted from webhooksPerEvent, as it counts it.
    expect(
      progressSummary(read({ webhooksLeft: 0, eventsQueued: 38_819, webhooksPerEvent: 2 })),
    ).toBe(
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · read done, about 77,638 webhooks left to deliver, counting those of 38,819 queued events · estimating time left',
    );
  });

  it('says done once they are all delivered or dead-lettered, with those dead-lettered', () => {
    expect(
      progressSummary(read({ deliveryDone: true, webhooksLeft: 0, webhooksDeadLettered: 3 })),
    ).toBe(
      'read 41,200 records · published 41,200 events · delivered 39,870 webhooks (3 dead-lettered) · done in 30 s',
    );
  });

  it('prints plain figures when the read is done, every 10 s of the wait, and when delivered', () => {
    let now = 0;
    const out: string[] = [];
    const show = progressRenderer(
      'plain',
      (text) => out.push(text),
      PLAIN_PALETTE,
      undefined,
      () => now,
    );
    show(read({ webhooksDelivered: 0, webhooksLeft: 400 }));
    for (let second = 1; second <= 12; second++) {
      now = second * 1000;
      show(read({ webhooksDelivered: second * 10, webhooksLeft: 400 - second * 10 }));
    }
    now = 13_000;
    show(read({ webhooksDelivered: 400, webhooksLeft: 0, deliveryDone: true }));
    const totals = out
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('total'));
    // The total is the work done: every record read, but a share of the webhooks delivered.
    expect(totals).toEqual([
      'total 0%: read 41,200 records · published 41,200 events · delivered 0 webhooks · read done, 400 webhooks left to deliver · estimating time left',
      // 100 settled in 10 s: 300 left take 30 s.
      'total 25%: read 41,200 records · published 41,200 events · delivered 100 webhooks · read done, 300 webhooks left to deliver · ~30 s left',
      'total 100%: read 41,200 records · published 41,200 events · delivered 400 webhooks · done in 30 s',
    ]);
  });
});
