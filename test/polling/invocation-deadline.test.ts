import { describe, expect, it } from 'vitest';
import { pollDeadline, reportsWatermarkAge } from '../../shared/polling/invocation-deadline.ts';
import type { StreamState } from '../../shared/state/state-store.ts';

describe('a poll invocation', () => {
  it('keeps 30 s back from a long timeout and a quarter of a short one, so it always polls', () => {
    expect(pollDeadline(1_000, 120_000)).toBe(91_000);
    expect(pollDeadline(1_000, 900_000)).toBe(871_000);
    // A 20 s timeout: 15 s of polling (a fixed 30 s margin put the deadline before the start).
    expect(pollDeadline(1_000, 20_000)).toBe(16_000);
    expect(pollDeadline(1_000, 10_000)).toBeGreaterThan(1_000);
  });

  it('reports a watermark age only for a stream past its first sync', () => {
    const state = (initialSyncDone: boolean, watermark: string | null) =>
      ({ initialSyncDone, watermark }) as unknown as StreamState;
    expect(reportsWatermarkAge(state(true, '2026-11-28T00:00:00.000Z'))).toBe(true);
    // A first sync (or a backfill) walks windows from years back: its age is progress.
    expect(reportsWatermarkAge(state(false, '2021-11-28T00:00:00.000Z'))).toBe(false);
    expect(reportsWatermarkAge(state(true, null))).toBe(false);
    expect(reportsWatermarkAge(undefined)).toBe(false);
  });
});
