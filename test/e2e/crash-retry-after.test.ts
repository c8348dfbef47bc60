import { describe, expect, it } from 'vitest';
import { adminCaller, waitForFirstSync } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { useCustomerBridge } from './customer-bridge.ts';

/** Long enough that a restarted bridge ignoring the pause would send before it ends. */
const RETRY_AFTER_SECONDS = 8;
/** How long the bridge gets to store the pause before the SIGKILL (README: the one gap). */
const LEARNING_MS = 500;

describe('change-bridge start killed (SIGKILL) while a Retry-After pause is in force, or just after a secret rotation', () => {
  const fixture = useCustomerBridge({
    seed: 29,
    dataDirPrefix: 'bridge-crash-pause-',
    pollInterval: '500ms',
    env: { CONNECTOR_RATE_LIMIT: 'off' },
  });
  const call = adminCaller(() => fixture.bridge.api);
  let subscriptionId = '';
  const changeCustomers = () => fixture.sim.controls.runActivity({ steps: 40 });

  it('sends the endpoint nothing before the pause ends, then delivers what waited', async () => {
    fixture.bridge.start();
    await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
    const subscription = (await call('POST', '/subscriptions', { url: fixture.receiver.url })) as {
      id: string;
      secret: string;
    };
    subscriptionId = subscription.id;
    fixture.receiver.setSecret(subscription.secret);

    fixture.receiver.failNext(1, () => true, 429, RETRY_AFTER_SECONDS);
    await changeCustomers();
    const paused = await waitFor(
      () => fixture.receiver.attempts.find((attempt) => attempt.status === 429),
      15_000,
      'the 429',
      10,
    );
    await new Promise((resolve) => setTimeout(resolve, LEARNING_MS));
    const killedAt = Date.now();
    await fixture.bridge.kill();
    fixture.bridge.start();
    await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
    await changeCustomers();

    const pauseEnds = paused.at + RETRY_AFTER_SECONDS * 1_000;
    await waitFor(
      () =>
        fixture.receiver.attempts.some(
          (attempt) => attempt.at >= pauseEnds && attempt.status === 204,
        ),
      RETRY_AFTER_SECONDS * 1_000 + 15_000,
      'deliveries after the pause',
      100,
    );
    // Requests already under way when the 429 came may still arrive (README); none after the
    // restart before the pause ends.
    const early = fixture.receiver.attempts.filter(
      (attempt) => attempt.at > killedAt && attempt.at < pauseEnds,
    );
    expect(early.map((attempt) => attempt.at - paused.at)).toEqual([]);
    // The event that met the 429 is delivered after the pause.
    await waitFor(
      () => fixture.receiver.received.some((event) => event.webhookId === paused.webhookId),
      15_000,
      'the event that met the 429',
      100,
    );
    expect(fixture.receiver.rejected).toBe(0);
    expect(await fixture.bridge.stop()).toBe(0);
  }, 60_000);

  it('signs with the new secret after a SIGKILL that came right after the rotation was answered', async () => {
    expect(subscriptionId).not.toBe('');
    fixture.bridge.start();
    await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
    const rotated = (await call('POST', `/subscriptions/${subscriptionId}/rotate-secret`)) as {
      secret: string;
    };
    await fixture.bridge.kill();
    // The receiver switches at once: it knows the new secret only.
    fixture.receiver.setSecret(rotated.secret);
    const seen = fixture.receiver.received.length;
    fixture.bridge.start();
    await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
    await changeCustomers();
    await waitFor(
      () => fixture.receiver.received.length > seen,
      15_000,
      'a delivery after the restart',
      50,
    );
    expect(fixture.receiver.rejected).toBe(0);
    expect(await fixture.bridge.stop()).toBe(0);
  }, 60_000);
});
