import { describe, expect, it } from 'vitest';
import { liveJudging, passWindowRead } from '../../shared/polling/backfill-state.ts';
import type { BackfillPass, StreamState } from '../../shared/state/state-store.ts';

const STARTED = Date.UTC(2026, 11, 6, 13, 40, 48);
const END = new Date(STARTED - 100).toISOString();
const pass: BackfillPass = {
  kind: 'pass',
  jobId: 'bf_1',
  emit: true,
  startedAt: STARTED,
  endUtc: END,
  watermark: null,
  window: {
    startUtc: '2025-11-01T00:00:00.000Z',
    endUtc: '2026-02-01T00:00:00.000Z',
    cursor: 'page-2',
    count: 1_000,
    pages: 1,
  },
  recordsRead: 0,
  eventsPublished: 0,
  doneAt: null,
};
const counts = { records: 1_000, events: 1_000 };

describe("a pass's windows read", () => {
  it('moves its watermark to a window read to the end, with no window in progress', () => {
    const read = passWindowRead(pass, counts, '2026-02-01T00:00:00.000Z', STARTED + 4_000);
    expect(read).toMatchObject({
      watermark: '2026-02-01T00:00:00.000Z',
      window: null,
      recordsRead: 1_000,
      eventsPublished: 1_000,
    });
    // Not its last window: not read to its end yet.
    expect(read.readToEndAt).toBeUndefined();
  });

  it('notes when its last window, reaching its end, was read', () => {
    const early = passWindowRead(pass, counts, '2026-02-01T00:00:00.000Z', STARTED + 4_000);
    const last = passWindowRead(early, counts, END, STARTED + 9_000);
    expect(last).toMatchObject({ watermark: END, readToEndAt: STARTED + 9_000 });
  });

  it('hands it to the live polls judging beside the pass, null while the pass reads', () => {
    const judged = (backfill: BackfillPass) =>
      liveJudging({ initialSyncDone: true, backfill } as unknown as StreamState, {
        startUtc: new Date(STARTED + 10_000).toISOString(),
      });
    const early = passWindowRead(pass, counts, '2026-02-01T00:00:00.000Z', STARTED + 4_000);
    expect(judged(early)).toMatchObject({
      unreadFrom: Date.parse('2026-02-01T00:00:00.000Z'),
      readToEndAt: null,
    });
    expect(judged(passWindowRead(early, counts, END, STARTED + 9_000))).toMatchObject({
      readToEndAt: STARTED + 9_000,
    });
  });
});
