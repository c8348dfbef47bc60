import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startExpirySweeps } from '../../shared/local/expiry-sweeps.ts';

describe('startExpirySweeps', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps first after firstAfterMs, then everyMs after each sweep ends, telling what it removed', async () => {
    const removedCounts = [3, 0, 7];
    const sweep = vi.fn(async () => removedCounts.shift() ?? 0);
    const onRemoved = vi.fn();
    const sweeps = startExpirySweeps({
      sweep,
      onRemoved,
      onError: () => undefined,
      firstAfterMs: 1_000,
      everyMs: 5_000,
    });

    await vi.advanceTimersByTimeAsync(999);
    expect(sweep).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(sweep).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(sweep).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sweep).toHaveBeenCalledTimes(3);
    // A sweep that removed nothing is not told.
    expect(onRemoved.mock.calls).toEqual([[3], [7]]);
    await sweeps.stop();
  });

  it('tells a failed sweep and sweeps again on time', async () => {
    const sweep = vi
      .fn<(signal: AbortSignal) => Promise<number>>()
      .mockRejectedValueOnce(new Error('store closed'))
      .mockResolvedValue(1);
    const onError = vi.fn();
    const sweeps = startExpirySweeps({
      sweep,
      onRemoved: () => undefined,
      onError,
      firstAfterMs: 10,
      everyMs: 10,
    });

    await vi.advanceTimersByTimeAsync(20);
    expect(onError).toHaveBeenCalledWith(new Error('store closed'));
    expect(sweep).toHaveBeenCalledTimes(2);
    await sweeps.stop();
  });

  it('stop ends the sweep under way through its signal, waits for it and schedules none', async () => {
    let finish: (() => void) | undefined;
    let seen: AbortSignal | undefined;
    const sweep = vi.fn(async (signal: AbortSignal) => {
      seen = signal;
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return 0;
    });
    const sweeps = startExpirySweeps({
      sweep,
      onRemoved: () => undefined,
      onError: () => undefined,
      firstAfterMs: 10,
      everyMs: 10,
    });
    await vi.advanceTimersByTimeAsync(10);

    let stopped = false;
    const stopping = sweeps.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    finish?.();
    await stopping;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sweep).toHaveBeenCalledTimes(1);
  });
});
