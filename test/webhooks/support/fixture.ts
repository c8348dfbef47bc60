import { type ManualClock, systemClock } from '../../../shared/clock.ts';
import { createHarness } from './harness.ts';
import { type ReceivedRequest, type ReceiverAction, startReceiver } from './receiver.ts';

/**
 * A verifying receiver and a dispatcher harness, closed by the caller's `cleanup` steps;
 * `subscribe(path)` creates a subscription to that path and tells the receiver its secret.
 */
export async function startDispatchFixture(
  cleanup: (() => Promise<void>)[],
  decide?: (request: { path: string }) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) {
  const receiver = await startReceiver(decide);
  const harness = createHarness(options);
  cleanup.push(
    () => harness.sender.close(),
    () => receiver.close(),
  );
  const subscribe = async (path: string, fields: Record<string, unknown> = {}) => {
    const created = await harness.service.createSubscription({
      url: receiver.url(path),
      ...fields,
    });
    receiver.secrets.set(path, [created.secret]);
    return created;
  };
  return { receiver, harness, subscribe, clock: harness.clock as ManualClock };
}

/**
 * {@link startDispatchFixture} on the system clock, its receiver deciding on each whole request:
 * for tests of real time (timeouts, slow answers, requests at once).
 */
export function startRealTimeFixture(
  cleanup: (() => Promise<void>)[],
  decide?: (request: ReceivedRequest) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) {
  return startDispatchFixture(
    cleanup,
    decide as ((request: { path: string }) => ReceiverAction) | undefined,
    { clock: systemClock, ...options },
  );
}
