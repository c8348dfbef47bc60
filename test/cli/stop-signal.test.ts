import { describe, expect, it } from 'vitest';
import { abortedOnStop, StopSignalReceived, withStopSignal } from '../../shared/cli/stop-signal.ts';

describe('a stop signal while a long-running command starts', () => {
  it('aborts the start-up with the signal it received as the reason', async () => {
    const reason = await withStopSignal(async (stopSignal) => {
      const startUp = abortedOnStop(stopSignal);
      expect(startUp.aborted).toBe(false);
      process.emit('SIGTERM', 'SIGTERM');
      await stopSignal;
      return startUp.reason;
    });
    expect(reason).toBeInstanceOf(StopSignalReceived);
    expect(reason).toMatchObject({ signal: 'SIGTERM' });
  });

  it('leaves a second signal to Node once the first arrived: it ends the process at once', async () => {
    const listeners = process.listenerCount('SIGINT');
    await withStopSignal(async (stopSignal) => {
      abortedOnStop(stopSignal);
      expect(process.listenerCount('SIGINT')).toBe(listeners + 1);
      process.emit('SIGINT', 'SIGINT');
      expect(await stopSignal).toBe('SIGINT');
      // The start-up is still ending: no listener of the command's holds a second signal.
      expect(process.listenerCount('SIGINT')).toBe(listeners);
    });
  });
});
