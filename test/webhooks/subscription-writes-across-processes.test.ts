import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { disableSubscription } from '../../shared/webhooks/endpoint-notices.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import type { WebhookStore } from '../../shared/webhooks/store.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('subscription-writes');
});
afterAll(async () => {
  await table.stop();
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * Holds the first subscription write of each of two processes (once armed) until both have come
 * to one: each has read the subscription before either writes, the race of two admin Lambda
 * containers (or one and a dispatcher) changing one subscription at once.
 */
function firstWritesMeet() {
  let armed = false;
  let arrived = 0;
  let release = () => {};
  const bothArrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    arm() {
      armed = true;
    },
    /** `store` as one process sees it: its first subscription write waits for the other's. */
    view(store: WebhookStore): WebhookStore {
      let held = false;
      const hold = async () => {
        if (!armed || held) return;
        held = true;
        if (++arrived === 2) release();
        await bothArrived;
      };
      const view: WebhookStore = Object.create(store);
      view.putSubscription = async (subscription) => {
        await hold();
        return store.putSubscription(subscription);
      };
      view.replaceSubscription = async (subscription, options) => {
        await hold();
        return store.replaceSubscription(subscription, options);
      };
      return view;
    },
  };
}

/** The stores of two processes: one memory store shared, or two DynamoDB clients of one table. */
const processStores: [string, (clock: ManualClock) => Promise<[WebhookStore, WebhookStore]>][] = [
  [
    'the memory store',
    async () => {
      const store = new MemoryWebhookStore();
      return [store, store];
    },
  ],
  [
    'DynamoDB (a client of its own each, one dynalite table)',
    async (clock) => {
      const other = await table.observedTable('subscription-writes', () => {});
      cleanup.push(async () => other.close());
      const { tableName } = other;
      return [
        new DynamoDbWebhookStore({ client: table.client, tableName, clock }),
        new DynamoDbWebhookStore({ client: other.client, tableName, clock }),
      ];
    },
  ],
];

describe.each(processStores)(
  'one subscription changed by two processes at once, on %s',
  (_name, storesOf) => {
    async function twoProcesses() {
      // Now: standardwebhooks refuses a signature whose timestamp is 5 minutes off its own clock.
      const clock = new ManualClock(Date.now());
      const [storeA, storeB] = await storesOf(clock);
      const meeting = firstWritesMeet();
      const fixture = await startDispatchFixture(cleanup, undefined, {
        clock,
        store: meeting.view(storeA),
      });
      const other = createHarness({ clock, store: meeting.view(storeB) });
      cleanup.push(() => other.sender.close());
      const { subscription } = await fixture.subscribe('/in');
      meeting.arm();
      /** Whether an event delivered now verifies with `secret` alone (standardwebhooks). */
      const signsWith = async (secret: string, n: number) => {
        fixture.receiver.secrets.set('/in', [secret]);
        fixture.harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
        await fixture.harness.drainVisible();
        return fixture.receiver.log.at(-1)?.verifiedWith === 1;
      };
      return { ...fixture, a: fixture.harness, b: other, id: subscription.id, signsWith };
    }

    it('signs with the secret each process answered for its rotation', async () => {
      const { a, b, id, signsWith } = await twoProcesses();
      const [one, two] = await Promise.all([
        a.service.rotateSecret(id),
        b.service.rotateSecret(id),
      ]);
      expect(await signsWith(one.secret, 1)).toBe(true);
      expect(await signsWith(two.secret, 2)).toBe(true);
    });

    it('keeps a rotated secret beside an update made in the other process', async () => {
      const { a, b, id, signsWith } = await twoProcesses();
      const [rotated] = await Promise.all([
        a.service.rotateSecret(id),
        b.service.updateSubscription(id, { description: 'billing' }),
      ]);
      expect(await signsWith(rotated.secret, 3)).toBe(true);
      expect((await a.service.getSubscription(id)).description).toBe('billing');
    });

    it('keeps a dispatcher’s disable beside a URL change made by an admin process', async () => {
      const { a, b, id, receiver } = await twoProcesses();
      await Promise.all([
        a.service.updateSubscription(id, { url: receiver.url('/moved') }),
        disableSubscription(id, 'endpoint answered 410 Gone', b.deps),
      ]);
      const stored = await a.service.getSubscription(id);
      expect(stored).toMatchObject({
        url: receiver.url('/moved'),
        enabled: false,
        disabledReason: 'endpoint answered 410 Gone',
      });
      expect(b.sink.events.map((event) => event.type)).toEqual(['subscription.disabled']);
    });

    it('keeps an admin disable beside a rotation made in the other process', async () => {
      const { a, b, id, signsWith } = await twoProcesses();
      const [, rotated] = await Promise.all([
        a.service.updateSubscription(id, { enabled: false }),
        b.service.rotateSecret(id),
      ]);
      expect((await a.service.getSubscription(id)).enabled).toBe(false);
      await a.service.updateSubscription(id, { enabled: true });
      expect(await signsWith(rotated.secret, 4)).toBe(true);
    });
  },
);
