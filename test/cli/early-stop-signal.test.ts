import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, without types
import { holdEarlyStopSignal } from '../../bin/early-stop-signal.js';
import { withStopSignal } from '../../shared/cli/stop-signal.ts';

type Release = () => NodeJS.Signals | undefined;
const releases: Release[] = [];

/** The entry's hold for `argv`, ended after the test whatever it did. */
function hold(argv: string[]): Release {
  const release: Release = holdEarlyStopSignal(argv);
  releases.push(release);
  return release;
}

/** The signal `withStopSignal` hands its command within 200 ms, or 'none'. */
function signalSeenByTheCommand(): Promise<string> {
  return withStopSignal((stopSignal) => Promise.race([stopSignal, delay(200).then(() => 'none')]));
}

afterEach(() => {
  for (const release of releases.splice(0)) release();
  vi.restoreAllMocks();
});

describe('a stop signal that arrives while the CLI loads', () => {
  it.each([
    ['start', 'SIGTERM'],
    ['simulator', 'SIGINT'],
  ] as const)('reaches %s once it watches for one (%s)', async (command, signal) => {
    const listeners = process.listenerCount(signal);
    hold([command, '--port', '0']);
    process.emit(signal, signal);
    expect(await signalSeenByTheCommand()).toBe(signal);
    expect(process.listenerCount(signal)).toBe(listeners);
  });

  it('is not held for a command that ends by itself: a signal ends it at once', async () => {
    const listeners = process.listenerCount('SIGINT');
    hold(['subscriptions', 'list']);
    expect(process.listenerCount('SIGINT')).toBe(listeners);
  });

  it('leaves the command to watch as before when none arrived', async () => {
    hold(['start']);
    expect(await signalSeenByTheCommand()).toBe('none');
  });

  it('ends the process at the second one, as a second signal does once the command watches', () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const listeners = process.listenerCount('SIGINT');
    hold(['start']);
    process.emit('SIGINT', 'SIGINT');
    expect(kill).not.toHaveBeenCalled();
    process.emit('SIGINT', 'SIGINT');
    expect(kill).toHaveBeenCalledWith(process.pid, 'SIGINT');
    expect(process.listenerCount('SIGINT')).toBe(listeners);
  });
});
