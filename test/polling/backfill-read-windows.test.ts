import { describe, expect, it } from 'vitest';
import {
  liveJudging,
  PASS_READ_WINDOWS_KEPT,
  passWindowRead,
} from '../../shared/polling/backfill-state.ts';
import type { BackfillPass, StreamState } from '../../shared/state/state-store.ts';

const STARTED = Date.UTC(2026, 11, 6, 13, 40, 48);
const pass: BackfillPass = {
  kind: 'pass',
  jobId: 'bf_1',
  emit: true,
  startedAt: STARTED,
  endUtc: new Date(STARTED - 100).toISOString(),
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
  it('notes each window read to the end with when, moving its watermark there', () => {
    const read = passWindowRead(pass, counts, '2026-02-01T00:00:00.000Z', STARTED + 4_000);
    expect(read).toMatchObject({
      watermark: '2026-02-01T00:00:00.000Z',
      window: null,
      recordsRead: 1_000,
      eventsPublished: 1_000,
      readWindows: [{ endUtc: '2026-02-01T00:00:00.000Z', doneAt: STARTED + 4_000 }],
    });
  });

  it(`keeps the last ${PASS_READ_WINDOWS_KEPT}, oldest first`, () => {
    let current = pass;
    for (let i = 0; i < PASS_READ_WINDOWS_KEPT + 5; i++)
      current = passWindowRead(
        current,
        counts,
        new Date(Date.UTC(2020, 0, 1 + i)).toISOString(),
        i,
      );
    expect(current.readWindows).toHaveLength(PASS_READ_WINDOWS_KEPT);
    expect(current.readWindows![0]!.doneAt).toBe(5);
    expect(current.readWindows!.at(-1)!.doneAt).toBe(PASS_READ_WINDOWS_KEPT + 4);
  });

  it('hands them to the live polls judging beside the pass, as epoch ms', () => {
    const read = passWindowRead(pass, counts, '2026-02-01T00:00:00.000Z', STARTED + 4_000);
    const state = { initialSyncDone: true, backfill: read } as unknown as StreamState;
    expect(liveJudging(state, { startUtc: new Date(STARTED + 5_000).toISOString() })).toMatchObject(
      {
        unreadFrom: Date.parse('2026-02-01T00:00:00.000Z'),
        readWindows: [{ end: Date.parse('2026-02-01T00:00:00.000Z'), doneAt: STARTED + 4_000 }],
      },
    );
  });
});
