import { afterEach, describe, expect, it } from 'vitest';
import type { DemoReceiver } from '../../shared/local/demo-receiver.ts';
import {
  removeDemoSubscriptions,
  startDemoReceiverWithSubscription,
} from '../../shared/local/demo-subscription.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { createHarness } from '../webhooks/support/harness.ts';

const receivers: DemoReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

const reporter = jsonReporter({ write: () => undefined, now: () => Date.now() });

describe("the demo receiver's subscription", () => {
  it("replaces the last run's on a start with --demo-receiver, and is removed on a start without", async () => {
    const { service } = createHarness();
    const own = await service.createSubscription({ url: 'http://127.0.0.1:9000/mine' });
    receivers.push(await startDemoReceiverWithSubscription(service, reporter));
    const second = await startDemoReceiverWithSubscription(service, reporter);
    receivers.push(second);
    const urls = async () => (await service.listSubscriptions()).map((s) => s.url).sort();
    // The first run's receiver is gone with its subscription; the user's own stays.
    expect(await urls()).toEqual([second.url, own.subscription.url].sort());
    // A start without --demo-receiver: nothing would answer at the demo URL any more.
    expect(await removeDemoSubscriptions(service)).toBe(1);
    expect(await urls()).toEqual([own.subscription.url]);
    expect(await removeDemoSubscriptions(service)).toBe(0);
  });
});
