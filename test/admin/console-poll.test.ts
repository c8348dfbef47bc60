import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { every } from '../../shared/admin/console/poll.js';

/** The page's status line, as poll.js and dom.js reach it. */
const status = {
  textContent: '',
  errored: false,
  classList: {
    toggle: (_: string, on: boolean) => {
      status.errored = on;
    },
    remove: () => {
      status.errored = false;
    },
  },
};

beforeEach(() => {
  vi.useFakeTimers();
  status.textContent = '';
  status.errored = false;
  vi.stubGlobal('window', { setTimeout: (run: () => void, ms: number) => setTimeout(run, ms) });
  vi.stubGlobal('document', { getElementById: (id: string) => (id === 'status' ? status : null) });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('console polling', () => {
  it('shows a failure in the status line and clears it when the next run succeeds', async () => {
    const outcomes = [new Error('401 bearer token missing or wrong'), undefined];
    const poller = every(async () => {
      const outcome = outcomes.shift();
      if (outcome) throw outcome;
    }, 1000);
    await vi.advanceTimersByTimeAsync(0);
    expect(status.textContent).toBe('401 bearer token missing or wrong');
    expect(status.errored).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(status.textContent).toBe('');
    expect(status.errored).toBe(false);
    poller.stop();
  });

  it('leaves a message said after the failure in place', async () => {
    let fail = true;
    const poller = every(async () => {
      if (fail) throw new Error('unreachable');
    }, 1000);
    await vi.advanceTimersByTimeAsync(0);
    status.textContent = 'Subscription created';
    status.errored = false;
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(status.textContent).toBe('Subscription created');
    poller.stop();
  });
});
