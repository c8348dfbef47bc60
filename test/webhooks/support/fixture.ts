import type { ManualClock } from '../../../shared/clock.ts';
import { createHarness } from './harness.ts';
import { type ReceiverAction, startReceiver } from './receiver.ts';

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
