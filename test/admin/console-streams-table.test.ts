import { describe, expect, it } from 'vitest';
import {
  STREAMS_SHOWN_MAX,
  streamLastError,
  streamState,
  streamsToShow,
} from '../../shared/admin/console/streams-table.js';

describe('the Last error column of the console streams table', () => {
  const setAside = {
    error:
      'customers/getAll: record set aside: the response breaks the contract at Customers[1].LastName',
    at: '2026-03-01T00:00:00.000Z',
  };

  it('shows the latest record set aside when the polls succeed, and the last poll error before it', () => {
    expect(streamLastError({ lastError: null, lastSetAside: setAside })).toBe(setAside.error);
    expect(streamLastError({ lastError: 'HTTP 500', lastSetAside: setAside })).toBe('HTTP 500');
    expect(streamLastError({ lastError: null, lastSetAside: null })).toBe('');
    // A bridge that predates the field.
    expect(streamLastError({ lastError: null })).toBe('');
  });
});

describe('the streams the console table shows', () => {
  const stream = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    parked: false,
    consecutiveFailures: 0,
    lastError: null,
    lastSetAside: null,
    ...extra,
  });

  it('shows every stream, in order, up to its limit', () => {
    const streams = [stream('a'), stream('b', { parked: true })];
    expect(streamsToShow(streams, 2)).toEqual(streams);
  });

  it('over its limit shows parked, then failing, then erring streams first, each in order', () => {
    const streams = [
      stream('ok-1'),
      stream('set-aside', { lastSetAside: { error: 'record set aside', at: '' } }),
      stream('failing', { consecutiveFailures: 2, lastError: 'HTTP 500' }),
      stream('ok-2'),
      stream('parked', { parked: true, parkedReason: 'token refused' }),
    ];
    expect(streamsToShow(streams, 4).map((s) => s.id)).toEqual([
      'parked',
      'failing',
      'set-aside',
      'ok-1',
    ]);
    // One no longer configured is not polled: its old state is no trouble now.
    const removed = stream('removed', { configured: false, parked: true });
    expect(streamsToShow([removed, ...streams], 2).map((s) => s.id)).toEqual(['parked', 'failing']);
    expect(streamsToShow(Array.from({ length: 13_000 }, (_, i) => stream(`s${i}`)))).toHaveLength(
      STREAMS_SHOWN_MAX,
    );
  });
});

describe('the State column of the console streams table', () => {
  const view = {
    configured: true,
    parked: false,
    parkedReason: null,
    consecutiveFailures: 0,
    initialSyncDone: true,
  };

  it('says a stream no longer configured is not polled, as streams list does, not ok', () => {
    expect(streamState({ ...view, configured: false })).toEqual({
      text: 'not polled',
      kind: 'muted',
    });
    expect(streamState({ ...view, configured: false, parked: true })).toEqual({
      text: 'not polled',
      kind: 'muted',
    });
  });

  it('says parked, failing, first sync and ok as before', () => {
    expect(streamState({ ...view, parked: true, parkedReason: 'token refused' })).toEqual({
      text: 'parked: token refused',
      kind: 'bad',
    });
    expect(streamState({ ...view, consecutiveFailures: 3 })).toEqual({
      text: '3 failures',
      kind: 'warn',
    });
    expect(streamState({ ...view, initialSyncDone: false })).toEqual({
      text: 'first sync',
      kind: 'muted',
    });
    expect(streamState(view)).toEqual({ text: 'ok', kind: 'ok' });
  });
});
