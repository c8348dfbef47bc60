import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoundedLog } from '../../shared/simulator/bounded-log.ts';
import {
  Journal,
  JournalGapError,
  SIM_JOURNAL_MAX_ENTRIES,
} from '../../shared/simulator/journal.ts';
import { SIM_REQUEST_LOG_MAX_ENTRIES } from '../../shared/simulator/request-log.ts';
import { type Harness, startHarness, TEST_START_MS } from './harness.ts';

/** The soak's activity (test/chaos/soak.ts) for its 30 minutes. */
const SOAK_JOURNAL_ENTRIES = 5 * 30 * 60;

describe('BoundedLog', () => {
  it('keeps the newest items through many pushes and counts the dropped ones', () => {
    const log = new BoundedLog<number>(7);
    for (let i = 1; i <= 1000; i++) {
      log.push(i);
      expect(log.size).toBe(Math.min(i, 7));
    }
    expect(log.from()).toEqual([994, 995, 996, 997, 998, 999, 1000]);
    expect(log.from(3)).toEqual([997, 998, 999, 1000]);
    expect(log.dropped).toBe(993);
    log.setMaxEntries(2);
    expect(log.from()).toEqual([999, 1000]);
    expect(log.dropped).toBe(998);
    log.clear();
    expect([log.size, log.dropped, log.from()]).toEqual([0, 0, []]);
    expect(() => new BoundedLog(0)).toThrow(RangeError);
  });
});

describe('journal window', () => {
  const append = (journal: Journal, n: number) => {
    for (let i = 0; i < n; i++)
      journal.append(TEST_START_MS + i, 'customer', `c${i}`, 'updated', ['Notes']);
  };

  it('keeps the newest maxEntries entries, seq going on, and refuses a since older than them', () => {
    const journal = new Journal(100);
    append(journal, 10_000);
    expect(journal.lastSeq).toBe(10_000);
    expect(journal.dropped).toBe(9_900);
    const kept = journal.since();
    expect(kept).toHaveLength(100);
    expect(kept[0]?.seq).toBe(9_901);
    expect(kept.at(-1)?.seq).toBe(10_000);
    expect(journal.since(9_900).map((e) => e.seq)).toEqual(kept.map((e) => e.seq));
    expect(journal.since(9_995).map((e) => e.seq)).toEqual([9_996, 9_997, 9_998, 9_999, 10_000]);
    expect(journal.since(10_000)).toEqual([]);
    expect(() => journal.since(0)).toThrow(JournalGapError);
    expect(() => journal.since(9_899)).toThrow(/since: entries up to seq 9900 were dropped/);
  });

  it('keeps by default a window of more than twice the 30-minute soak', () => {
    expect(new Journal().maxEntries).toBe(SIM_JOURNAL_MAX_ENTRIES);
    expect(SIM_JOURNAL_MAX_ENTRIES).toBeGreaterThanOrEqual(2 * SOAK_JOURNAL_ENTRIES);
    expect(SIM_REQUEST_LOG_MAX_ENTRIES).toBeGreaterThanOrEqual(100_000);
  });
});

describe('simulator journal and request log, bounded', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ rateLimit: false, journalMaxEntries: 1_000, requestLogMaxEntries: 3 });
    // 20 s at 500 mutations a second: 10,000 would be kept without the bound.
    await h.sim.controls.runActivity({ durationMs: 20_000, perSecond: 500 });
  });
  afterAll(async () => {
    await h.close();
  });

  const get = async (path: string) => {
    const response = await fetch(`${h.sim.url}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('keeps the newest journalMaxEntries mutations', () => {
    const journal = h.sim.controls.model.journal;
    expect(journal.lastSeq).toBeGreaterThanOrEqual(10_000);
    expect(h.sim.controls.journal()).toHaveLength(1_000);
    expect(h.sim.controls.journal().at(-1)?.seq).toBe(journal.lastSeq);
    expect(() => h.sim.controls.journal(0)).toThrow(JournalGapError);
  });

  it('answers GET /_sim/journal with the window and what was dropped, and 410 for a since before it', async () => {
    const lastSeq = h.sim.controls.model.journal.lastSeq;
    const all = await get('/_sim/journal');
    expect(all.status).toBe(200);
    expect(all.body.entries).toHaveLength(1_000);
    expect(all.body).toMatchObject({ lastSeq, dropped: lastSeq - 1_000 });
    const recent = await get(`/_sim/journal?since=${lastSeq - 10}`);
    expect(recent.status).toBe(200);
    expect(recent.body.entries).toHaveLength(10);
    const fromWindow = await get(`/_sim/journal?since=${lastSeq - 1_000}`);
    expect(fromWindow.body.entries).toHaveLength(1_000);
    for (const since of [0, lastSeq - 1_001]) {
      const gone = await get(`/_sim/journal?since=${since}`);
      expect(gone.status).toBe(410);
      expect(gone.body.Message).toMatch(/^since: entries up to seq \d+ were dropped/);
      expect(gone.body).toMatchObject({ lastSeq, dropped: lastSeq - 1_000 });
    }
  });

  it('answers a malformed since with a 400 naming since', async () => {
    for (const since of ['abc', '-1', '1.5', '', '1e3', '0x10']) {
      const answer = await get(`/_sim/journal?since=${encodeURIComponent(since)}`);
      expect(answer.status, since).toBe(400);
      expect(answer.body.Message, since).toMatch(/^since: must be a whole number/);
    }
  });

  it('keeps the newest requestLogMaxEntries requests and says how many it dropped', async () => {
    h.sim.controls.clearRequestLog();
    for (let i = 0; i < 5; i++) await h.client.accountNotes.getAll({ Limitation: { Count: 1 } });
    expect(h.sim.controls.requestLog()).toHaveLength(3);
    expect(h.sim.controls.requestLogDropped()).toBe(2);
    const answer = await get('/_sim/requests');
    expect(answer.body.requests).toHaveLength(3);
    expect(answer.body.dropped).toBe(2);
    h.sim.controls.clearRequestLog();
    expect([h.sim.controls.requestLog(), h.sim.controls.requestLogDropped()]).toEqual([[], 0]);
  });
});
