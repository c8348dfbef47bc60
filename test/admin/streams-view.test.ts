import { describe, expect, it } from 'vitest';
import { toStreamView } from '../../shared/admin/streams-view.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { customerSpec } from '../../shared/polling/specs/customer.ts';

const NOW = Date.UTC(2026, 2, 10, 9, 0, 0);

function definition(intervalMs: number): StreamDefinition {
  return {
    streamId: 'hotel-1:customer',
    connectionId: 'hotel-1',
    spec: customerSpec,
    scope: {},
    intervalMs,
    initialSync: 'baseline',
  };
}

describe('the view of a stream', () => {
  it('shows the due time of the current interval when the kept one lies beyond it', () => {
    // Polled under a 1 minute interval, then re-added with --keep-state and --interval 10s.
    const kept = {
      ...initialStreamState(definition(60_000), NOW),
      lastPollAt: NOW - 5_000,
      lastSuccessAt: NOW - 5_000,
      nextDueAt: NOW + 55_000,
      initialSyncDone: true,
    };

    expect(toStreamView(definition(10_000), kept, NOW).nextDueAt).toBe(
      new Date(NOW + 5_000).toISOString(),
    );
    expect(toStreamView(undefined, kept, NOW).nextDueAt).toBe(new Date(NOW + 55_000).toISOString());
  });

  it('shows the records set aside and the latest one, and none for a stream that set none aside', () => {
    const state = initialStreamState(definition(60_000), NOW);
    expect(toStreamView(definition(60_000), state, NOW)).toMatchObject({
      recordsSetAside: 0,
      lastSetAside: null,
    });
    const error =
      'customers/getAll: record set aside: the response breaks the contract at Customers[3].Email';
    const view = toStreamView(
      definition(60_000),
      { ...state, recordsSetAside: 2, lastSetAside: { error, at: NOW - 1_000 } },
      NOW,
    );
    expect(view).toMatchObject({
      recordsSetAside: 2,
      lastSetAside: { error, at: new Date(NOW - 1_000).toISOString() },
    });
  });
});
