import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { StreamViewSchema } from '../../shared/admin/schemas.ts';
import { streamStateText } from '../../shared/cli/admin/stream-state.ts';
import { clip, lastErrorText } from '../../shared/cli/admin/streams.ts';

type StreamView = z.infer<typeof StreamViewSchema>;

/** A configured stream as `GET /streams` shows it before any poll, with `fields` over it. */
function view(fields: Partial<StreamView>): StreamView {
  return {
    id: 'main:customer',
    connectionId: 'main',
    entityType: 'customer',
    configured: true,
    strategy: 'windowed',
    watermark: null,
    lastPollAt: null,
    lastSuccessAt: null,
    nextDueAt: null,
    lagSeconds: null,
    consecutiveFailures: 0,
    lastError: null,
    parked: false,
    parkedReason: null,
    initialSyncDone: false,
    windowInProgress: null,
    recordsRead: 0,
    eventsPublished: 0,
    recordsSetAside: 0,
    lastSetAside: null,
    ...fields,
  };
}

const WINDOW = { startUtc: '2025-01-01T00:00:00.000Z', endUtc: '2025-04-01T00:00:00.000Z' };

describe('the STATE column of streams list', () => {
  it('shows a backfill pass beside the live polls with its own records read', () => {
    const pass = {
      jobId: 'bf_1',
      watermark: null,
      windowInProgress: null,
      recordsRead: 4_000,
      eventsPublished: 4_000,
    };
    const live = { initialSyncDone: true, lastPollAt: '2026-01-01T00:00:00.000Z' };
    expect(streamStateText(view({ ...live, backfillPass: pass }))).toBe('backfill (4,000 records)');
    expect(streamStateText(view({ ...live, backfillPass: null }))).toBe('ok');
  });

  it('says "never polled" of a stream nothing was read for', () => {
    expect(streamStateText(view({}))).toBe('never polled');
  });

  it('shows a first sync whose first poll run has not ended, with its progress, not "never polled"', () => {
    expect(
      streamStateText(view({ windowInProgress: { ...WINDOW, pages: 12 }, recordsRead: 12_000 })),
    ).toBe('first sync (12,000 records, window 12 pages)');
    // Between two windows of the run: a watermark committed, no window open yet.
    expect(
      streamStateText(view({ watermark: WINDOW.endUtc, lagSeconds: 600, recordsRead: 40_500 })),
    ).toBe('first sync (40,500 records)');
  });

  it('shows a first sync spanning poll runs the same way', () => {
    expect(
      streamStateText(
        view({
          lastPollAt: '2026-03-01T00:00:00.000Z',
          watermark: WINDOW.endUtc,
          windowInProgress: { ...WINDOW, pages: 3 },
          recordsRead: 3_000,
        }),
      ),
    ).toBe('first sync (3,000 records, window 3 pages)');
    expect(streamStateText(view({ lastPollAt: '2026-03-01T00:00:00.000Z' }))).toBe('first sync');
  });

  it('keeps the words of a synced, parked or dropped stream', () => {
    const synced = { lastPollAt: '2026-03-01T00:00:00.000Z', initialSyncDone: true };
    expect(streamStateText(view(synced))).toBe('ok');
    expect(streamStateText(view({ ...synced, windowInProgress: { ...WINDOW, pages: 2 } }))).toBe(
      'window (2 pages)',
    );
    expect(streamStateText(view({ ...synced, parked: true }))).toBe('parked');
    expect(streamStateText(view({ ...synced, configured: false, parked: true }))).toBe(
      'not polled',
    );
  });
});

describe('the LAST ERROR column of streams list', () => {
  it('shows an error up to 80 characters whole, and a longer one cut with an ellipsis', () => {
    expect(clip('HTTP 401', 80)).toBe('HTTP 401');
    const long = `connector refused the request (authorization, HTTP 401): ${'Invalid token. '.repeat(5)}`;
    const shown = clip(long, 80);
    expect(shown).toHaveLength(80);
    expect(shown.endsWith('…')).toBe(true);
    expect(long.startsWith(shown.slice(0, -1))).toBe(true);
  });
});

describe('the LAST ERROR column of streams list', () => {
  const setAside = {
    error:
      'customers/getAll: record set aside: the response breaks the contract at Customers[1].Email',
    at: '2026-03-01T00:00:00.000Z',
  };

  it('shows the latest record set aside when the polls succeed', () => {
    expect(lastErrorText(view({ lastSetAside: setAside, recordsSetAside: 1 }))).toBe(
      setAside.error,
    );
    expect(lastErrorText(view({}))).toBe('');
  });

  it('shows a failed poll or a parked stream before a record set aside', () => {
    expect(lastErrorText(view({ lastSetAside: setAside, lastError: 'poll failed' }))).toBe(
      'poll failed',
    );
    expect(
      lastErrorText(view({ lastSetAside: setAside, parked: true, parkedReason: 'refused' })),
    ).toBe('refused');
  });
});
