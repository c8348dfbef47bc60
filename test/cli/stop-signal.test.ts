import { describe, expect, it } from 'vitest';
import { StopSignalReceived, withStopSignal } from '../../shared/cli/stop-signal.ts';

describe('a stop signal while a long-running command starts', () => {
  it('aborts the start-up as it arrives, with the signal as the reason', async () => {
    const reason = await withStopSignal(async (stopSignal, startUp) => {
      expect(startUp.aborted).toBe(false);
      process.emit('SIGTERM', 'SIGTERM');
      // At once: a step that checks right after the signal sees it, not a promise's turn later.
      expect(startUp.aborted).toBe(true);
      expect(await stopSignal).toBe('SIGTERM');
      return startUp.reason;
    });
    expect(reason).toBeInstanceOf(StopSignalReceived);
    expect(reason).toMatchObject({ signal: 'SIGTERM' });
  });

  it('leaves a second signal to Node once the first arrived: it ends the process at once', async () => {
    const listeners = process.listenerCount('SIGINT');
    await withStopSignal(async (stopSignal) => {
      expect(process.listenerCount('SIGINT')).toBe(listeners + 1);
      process.emit('SIGINT', 'SIGINT');
      expect(await stopSignal).toBe('SIGINT');
      // The start-up is still ending: no listener of the command's holds a second signal.
      expect(process.listenerCount('SIGINT')).toBe(listeners);
    });
  });
});
