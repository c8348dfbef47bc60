import { describe, expect, it } from 'vitest';
import { emitsCreated, type StreamDefinition } from '../../shared/polling/poll-context.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { customerSpec } from '../../shared/polling/specs/customer.ts';

const definition = (initialSync: 'baseline' | 'emit'): StreamDefinition => ({
  streamId: 'main:customer',
  connectionId: 'main',
  spec: customerSpec,
  scope: {},
  intervalMs: 60_000,
  initialSync,
});

describe('emitsCreated', () => {
  it('follows INITIAL_SYNC during a first sync', () => {
    expect(
      emitsCreated(definition('baseline'), initialStreamState(definition('baseline'), 0)),
    ).toBe(false);
    expect(emitsCreated(definition('emit'), initialStreamState(definition('emit'), 0))).toBe(true);
  });

  it("lets a backfill's own mode win over INITIAL_SYNC", () => {
    const state = {
      ...initialStreamState(definition('emit'), 0),
      initialSync: 'baseline' as const,
    };
    expect(emitsCreated(definition('emit'), state)).toBe(false);
    expect(emitsCreated(definition('baseline'), { ...state, initialSync: 'emit' })).toBe(true);
  });

  it('always publishes created events once the first sync is done', () => {
    const state = { ...initialStreamState(definition('baseline'), 0), initialSyncDone: true };
    expect(emitsCreated(definition('baseline'), state)).toBe(true);
  });
});
