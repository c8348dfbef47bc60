import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  addConnection,
  type ConnectionAdminDeps,
  removeConnection,
} from '../../shared/connections/connection-admin.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { streamState } from '../state/state-store.contract.ts';

/** A state store whose first deleteStream waits (a remove deleting a big stream's snapshots). */
class SlowFirstDeleteStore extends MemoryStateStore {
  private held = false;
  release: () => void = () => undefined;
  private onStart: () => void = () => undefined;
  readonly started = new Promise<void>((resolve) => {
    this.onStart = resolve;
  });
  override async deleteStream(streamId: string): Promise<void> {
    if (!this.held) {
      this.held = true;
      this.onStart();
      await new Promise<void>((resolve) => {
        this.release = resolve;
      });
    }
    return super.deleteStream(streamId);
  }
}

describe('connections remove racing another remove and add', () => {
  it('a remove still deleting state does not delete the connection added again meanwhile', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const state = new SlowFirstDeleteStore();
    const deps: ConnectionAdminDeps = {
      store: new MemoryConnectionStore(),
      cipher: createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 2))),
      state,
      clock,
      configured: [],
    };
    await addConnection({ id: 'hotel-1', accessToken: 'old-token' }, deps);
    await state.saveStream(streamState('hotel-1:customer'), 0);

    // The first remove (the CLI gave up after 30 s; the server goes on) is deleting state...
    const first = removeConnection('hotel-1', { keepState: false }, deps);
    await state.started;
    // ...the admin runs remove again, then adds the hotel back with its new token.
    await removeConnection('hotel-1', { keepState: false }, deps);
    await clock.advance(1000);
    await addConnection({ id: 'hotel-1', accessToken: 'new-token' }, deps);

    state.release();
    await first;

    // The first remove leaves the new registration (and its token) it never saw.
    const stored = await deps.store.get('hotel-1');
    expect(stored).toBeDefined();
    expect(await deps.cipher.open('hotel-1', stored!.accessToken)).toBe('new-token');
  });
});
