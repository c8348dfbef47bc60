import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import {
  createUndiciTransport,
  type HttpTransport,
} from '../../shared/connector/http-transport.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { SnapshotWriteGate } from '../../shared/polling/snapshot-write-gate.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import {
  createWriteThrough,
  PROXY_ANSWER_MS,
  type WriteThrough,
} from '../../shared/writes/write-through.ts';
import { type PollHarness, startPollHarness } from '../polling/poll-harness.ts';
import { driveClock } from '../support/drive-clock.ts';

/**
 * A write through the proxy and a poll of the same stream at the same moment, against the
 * simulator and dynalite: each test places the proxy's whole write (connector, snapshot read,
 * publish, snapshot write) at one point of a poll's page (before it is judged, between its
 * judging and its publishing, between its publishing and its storing), or a poll at one point
 * of the proxy's write, and looks at what subscribers got and what the next poll emits.
 */
describe('a write through the proxy racing a poll of the same stream', () => {
  let h: PollHarness;
  let definition: StreamDefinition;
  let deps: PollDeps;
  const notesOf = (events: readonly EntityEvent[], subject: string) =>
    events
      .filter((event) => event.subject === subject)
      .map((event) => (event.data.current as { Notes?: string } | null)?.Notes);

  beforeAll(async () => {
    h = await startPollHarness('small', 47);
    definition = h.definitions().find((d) => d.streamId === 'sim:customer')!;
    deps = h.deps('chain');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ caughtUp: true });
  }, 60_000);
  afterAll(() => h?.close());

  let customers: string[] = [];
  beforeEach(() => {
    if (customers.length === 0)
      customers = [...h.sim.controls.model.customers.all()]
        .filter((entry) => entry.deletedMs === null && entry.record.IsActive)
        .map((entry) => entry.record.Id as string);
  });
  const HOTEL = 'changed in the hotel';
  const PROXY = 'written through the proxy';
  const LATER = 'changed in the hotel after the write';

  async function write(writeThrough: WriteThrough, customer: string) {
    await h.clock.advance(1_000);
    const result = await writeThrough.forward('customers/update', {
      CustomerId: customer,
      Notes: PROXY,
    });
    expect(result.status).toBe(200);
  }

  /** A customer no other test touched. */
  const nextCustomer = () => customers.shift()!;

  const connector = () => ({
    baseUrl: h.sim.url,
    clientToken: h.sim.tokens.clientToken,
    accessToken: h.sim.tokens.accessToken,
    client: 'tests',
    rateLimit: false as const,
  });

  function proxy(
    overrides: {
      state?: StateStore;
      publisher?: EventPublisher;
      snapshotGate?: SnapshotWriteGate;
      transport?: HttpTransport;
      /** The connector requests' timeout (ms). */
      timeoutMs?: number;
    } = {},
  ): WriteThrough {
    return createWriteThrough({
      connectionId: definition.connectionId,
      connector: {
        ...connector(),
        ...(overrides.timeoutMs === undefined ? {} : { timeoutMs: overrides.timeoutMs }),
      },
      scope: definition.scope,
      publisher: overrides.publisher ?? h.publisher,
      state: overrides.state ?? deps.store,
      streams: h.definitions(),
      clock: h.clock,
      ...(overrides.snapshotGate ? { snapshotGate: overrides.snapshotGate } : {}),
      ...(overrides.transport ? { transport: overrides.transport } : {}),
    });
  }

  /**
   * A publisher that holds the page carrying the customer's hotel change at its publish:
   * `atPublish` resolves once it is held, `release` lets it go on.
   */
  function pageHeldAtPublish(customer: string) {
    let reached!: () => void;
    const atPublish = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const publisher: EventPublisher = {
      publish: async (events) => {
        if (notesOf(events as EntityEvent[], customer).includes(HOTEL)) {
          reached();
          await released;
        }
        return h.publisher.publish(events);
      },
    };
    return { publisher, atPublish, release };
  }

  /** A payment request of `value` EUR for a customer no other test touched, added through the proxy. */
  function addPayment(writeThrough: WriteThrough, value: number, description: string) {
    return writeThrough.forward('paymentRequests/add', {
      EnterpriseId: h.sim.controls.model.world.enterprises[0]!.Id,
      PaymentRequests: [
        {
          AccountId: nextCustomer(),
          Amount: { Currency: 'EUR', Value: value },
          Type: 'Payment',
          Reason: 'Deposit',
          ExpirationUtc: new Date(h.clock.now() + 86_400_000).toISOString(),
          Description: description,
        },
      ],
    });
  }

  /** A change made in the hotel's own application (not through the bridge). */
  async function hotelChange(customerId: string, notes: string) {
    const response = await fetch(`${h.sim.url}/api/connector/v1/customers/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ClientToken: h.sim.tokens.clientToken,
        AccessToken: h.sim.tokens.accessToken,
        Client: 'hotel',
        CustomerId: customerId,
        Notes: notes,
      }),
    });
    expect(response.status).toBe(200);
  }

  /** Polls the customers until a poll covers the present, with `overrides` for this poll. */
  async function poll(overrides: Partial<PollDeps> = {}) {
    await h.clock.advance(2_000);
    return pollStream(definition, { ...deps, ...overrides }, 't');
  }

  /** The stored snapshot's Notes. */
  async function storedNotes(customerId: string) {
    const stored = await deps.store.getSnapshots(definition.streamId, [customerId]);
    return (stored.get(customerId)?.record as { Notes?: string } | undefined)?.Notes;
  }

  /**
   * `at` runs once, at one point of the poll's page of the customer: `judged` (after the page's
   * snapshots were read and judged, before its events are published), `published` (after the
   * publish, before the snapshots are stored).
   */
  async function pollWith(
    at: 'judged' | 'published',
    customerId: string,
    run: () => Promise<void>,
  ) {
    let ran = false;
    const once = async (events: readonly unknown[]) => {
      if (ran || !(events as EntityEvent[]).some((e) => e.subject === customerId)) return;
      ran = true;
      await run();
    };
    const publisher: EventPublisher = {
      publish: async (events) => {
        if (at === 'judged') await once(events);
        return h.publisher.publish(events);
      },
    };
    const observer = {
      afterPublish: async (_streamId: string, changes: { events: EntityEvent[] }) => {
        if (at === 'published') await once(changes.events);
      },
    };
    await poll({ publisher, observer });
    expect(ran).toBe(true);
  }

  it.each([
    { window: 'a live window', unpolledMs: 10_000 },
    // Two hours unpolled: the next window is catch-up work (bulk), not a live poll; its pages
    // were stored without conditions once 19bfdc6 made them bulk.
    {
      window: 'a catch-up window (the stream unpolled for two hours)',
      unpolledMs: 2 * 60 * 60_000,
    },
  ])(
    'a write between a page of $window being judged and published: the stale page event is followed by the write again at once, and the snapshot keeps the write',
    async ({ unpolledMs }) => {
      const customer = nextCustomer();
      const writeThrough = proxy();
      try {
        await h.clock.advance(unpolledMs);
        await hotelChange(customer, HOTEL);
        const from = h.publisher.events.length;
        await h.clock.advance(2_000);
        await pollWith('judged', customer, () => write(writeThrough, customer));
        // The page judged the hotel change against the older snapshot before the proxy stored:
        // its event went out after the write's. The subject's last word is the write again.
        expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([PROXY, HOTEL, PROXY]);
        // Before, the page stored its older record over the write's: the next poll found the
        // connector ahead of the snapshot (here it emitted the write a third time).
        expect(await storedNotes(customer)).toBe(PROXY);
        await poll();
        await poll();
        expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([PROXY, HOTEL, PROXY]);
      } finally {
        await writeThrough.close();
      }
    },
  );

  it('a write between a page being published and stored: each version once, in order, and the snapshot keeps the write', async () => {
    const customer = nextCustomer();
    const writeThrough = proxy();
    try {
      await h.clock.advance(10_000);
      await hotelChange(customer, HOTEL);
      const from = h.publisher.events.length;
      await h.clock.advance(2_000);
      await pollWith('published', customer, () => write(writeThrough, customer));
      expect(await storedNotes(customer)).toBe(PROXY);
      await poll();
      await poll();
      // Before, the page stored its older record over the write's, and the next poll
      // published the write a second time.
      expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([HOTEL, PROXY]);
    } finally {
      await writeThrough.close();
    }
  });

  /**
   * The proxy writes; a hotel change after it and a whole poll of it run at `at` of the
   * proxy's recording: before it publishes, or between its publishing and its storing.
   */
  async function pollDuringRecording(at: 'publish' | 'store', customer: string) {
    let ran = false;
    const interleave = async () => {
      if (ran) return;
      ran = true;
      await h.clock.advance(1_000);
      await hotelChange(customer, LATER);
      await poll();
    };
    const store = deps.store;
    const writeThrough = proxy({
      state: new Proxy(store, {
        get(target, property, receiver) {
          const stores = property === 'replaceSnapshots' || property === 'putSnapshots';
          const method = Reflect.get(target, property, receiver);
          if (at !== 'store' || !stores) return method;
          return async (...args: unknown[]) => {
            await interleave();
            return Reflect.apply(method as (...a: unknown[]) => unknown, target, args);
          };
        },
      }),
      publisher: {
        publish: async (events) => {
          if (at === 'publish') await interleave();
          return h.publisher.publish(events);
        },
      },
    });
    try {
      await h.clock.advance(10_000);
      await write(writeThrough, customer);
      expect(ran).toBe(true);
    } finally {
      await writeThrough.close();
    }
  }

  it('a poll of a later hotel change before the proxy publishes: the later version is published again after the write, and stays stored', async () => {
    const customer = nextCustomer();
    const from = h.publisher.events.length;
    await pollDuringRecording('publish', customer);
    // The write's event went out after the poll's of a later version: before, that was the
    // subject's last word, and the proxy stored its older record over the poll's, so no poll
    // ever told the later version again (it had left the windows).
    expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([LATER, PROXY, LATER]);
    expect(await storedNotes(customer)).toBe(LATER);
    await poll();
    await poll();
    expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([LATER, PROXY, LATER]);
  });

  it('a poll of a later hotel change between the proxy publishing and storing: each version once, in order, and the later one stays stored', async () => {
    const customer = nextCustomer();
    const from = h.publisher.events.length;
    await pollDuringRecording('store', customer);
    // Before, the proxy stored its older record over the poll's: the connector stayed ahead of
    // the snapshot, so a later change was judged against the wrong record.
    expect(await storedNotes(customer)).toBe(LATER);
    await poll();
    await poll();
    expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([PROXY, LATER]);
  });

  it('a poll of a later hotel change between the write and the proxy reading its snapshot: the write is no news, the later version is told once', async () => {
    const customer = nextCustomer();
    let ran = false;
    const writeThrough = proxy({
      state: new Proxy(deps.store, {
        get(target, property, receiver) {
          const method = Reflect.get(target, property, receiver);
          if (property !== 'getSnapshots') return method;
          return async (...args: Parameters<StateStore['getSnapshots']>) => {
            if (!ran) {
              ran = true;
              await h.clock.advance(1_000);
              await hotelChange(customer, LATER);
              await poll();
            }
            return target.getSnapshots(...args);
          };
        },
      }),
    });
    try {
      await h.clock.advance(10_000);
      const from = h.publisher.events.length;
      await write(writeThrough, customer);
      expect(ran).toBe(true);
      await poll();
      await poll();
      expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([LATER]);
      expect(await storedNotes(customer)).toBe(LATER);
    } finally {
      await writeThrough.close();
    }
  });

  it('a poll reading the written record before the proxy stores it: both tell it with one id', async () => {
    const customer = nextCustomer();
    let ran = false;
    const writeThrough = proxy({
      publisher: {
        publish: async (events) => {
          if (!ran) {
            ran = true;
            await poll();
          }
          return h.publisher.publish(events);
        },
      },
    });
    try {
      await h.clock.advance(10_000);
      const from = h.publisher.events.length;
      await write(writeThrough, customer);
      expect(ran).toBe(true);
      await poll();
      const events = h.publisher.events.slice(from).filter((e) => e.subject === customer);
      expect(notesOf(events, customer)).toEqual([PROXY, PROXY]);
      expect(new Set(events.map((event) => event.id)).size).toBe(1);
      expect(await storedNotes(customer)).toBe(PROXY);
    } finally {
      await writeThrough.close();
    }
  });

  it('a write the connector refuses records nothing: no event, the snapshot as it was', async () => {
    const [customer, other] = [nextCustomer(), nextCustomer()];
    const email = h.sim.controls.model.customers.get(other)!.record.Email ?? 'taken@example.com';
    if (!h.sim.controls.model.customers.get(other)!.record.Email)
      h.sim.controls.model.update(h.sim.controls.model.customers, 'customer', other, {
        Email: email,
      });
    await poll();
    const writeThrough = proxy();
    try {
      const from = h.publisher.events.length;
      const before = await deps.store.getSnapshots(definition.streamId, [customer]);
      const result = await writeThrough.forward('customers/update', {
        CustomerId: customer,
        Email: email,
      });
      expect(result.status).toBe(403);
      expect(result.events).toBe(0);
      expect(await deps.store.getSnapshots(definition.streamId, [customer])).toEqual(before);
      await poll();
      expect(h.publisher.events.slice(from).filter((e) => e.subject === customer)).toEqual([]);
    } finally {
      await writeThrough.close();
    }
  });

  it('a write whose answer is lost after the connector applied it is told once, by the next poll', async () => {
    const customer = nextCustomer();
    const writeThrough = proxy({ timeoutMs: 150 });
    try {
      await h.clock.advance(10_000);
      const from = h.publisher.events.length;
      // Every attempt (an update is retried) is applied, and answered after the client gave up.
      h.sim.controls.setFaults({ script: Array(10).fill('slow'), slowMs: 2_500 });
      const error = await driveClock(
        h.clock,
        writeThrough.forward('customers/update', { CustomerId: customer, Notes: PROXY }),
      ).catch((caught: unknown) => caught);
      h.sim.controls.setFaults({ script: [] });
      expect(error).toBeInstanceOf(ConnectorError);
      expect(h.sim.controls.model.customers.get(customer)!.record.Notes).toBe(PROXY);
      expect(h.publisher.events.slice(from)).toEqual([]);
      await poll();
      await poll();
      expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([PROXY]);
    } finally {
      h.sim.controls.setFaults({ script: [] });
      await writeThrough.close();
    }
  });

  it('an add whose answer is lost is sent once and told once, by the next poll of payment requests', async () => {
    const payments = h.definitions().find((d) => d.streamId === 'sim:paymentRequest')!;
    await h.clock.advance(2_000);
    expect(await pollStream(payments, deps, 't')).toMatchObject({ caughtUp: true });
    const writeThrough = proxy({ timeoutMs: 150 });
    try {
      await h.clock.advance(10_000);
      const from = h.publisher.events.length;
      h.sim.controls.clearRequestLog();
      h.sim.controls.setFaults({ script: Array(10).fill('slow'), slowMs: 2_500 });
      const error = await driveClock(
        h.clock,
        addPayment(writeThrough, 40, 'lost answer through the proxy'),
      ).catch((caught: unknown) => caught);
      h.sim.controls.setFaults({ script: [] });
      expect(error).toBeInstanceOf(ConnectorError);
      expect(h.sim.controls.requestLog()).toHaveLength(1);
      const added = [...h.sim.controls.model.paymentRequests.all()].filter(
        (entry) => entry.record.Description === 'lost answer through the proxy',
      );
      expect(added).toHaveLength(1);
      expect(h.publisher.events.slice(from)).toEqual([]);
      for (let i = 0; i < 3; i++) {
        await h.clock.advance(2_000);
        await pollStream(payments, deps, 't');
      }
      const told = h.publisher.events
        .slice(from)
        .filter((event) => event.subject === added[0]!.record.Id);
      expect(told.map((event) => event.type)).toEqual(['paymentRequest.created']);
    } finally {
      h.sim.controls.setFaults({ script: [] });
      await writeThrough.close();
    }
  });

  it('an add answered 429 is sent again once, adds one record and is told once (the next poll adds nothing)', async () => {
    const payments = h.definitions().find((d) => d.streamId === 'sim:paymentRequest')!;
    await h.clock.advance(2_000);
    await pollStream(payments, deps, 't');
    const writeThrough = proxy();
    try {
      await h.clock.advance(10_000);
      const from = h.publisher.events.length;
      h.sim.controls.clearRequestLog();
      h.sim.controls.setFaults({ script: ['rate-limit'] });
      const result = await driveClock(
        h.clock,
        addPayment(writeThrough, 41, 'rate limited through the proxy'),
      );
      expect(result.status).toBe(200);
      expect(h.sim.controls.requestLog()).toHaveLength(2);
      const added = [...h.sim.controls.model.paymentRequests.all()].filter(
        (entry) => entry.record.Description === 'rate limited through the proxy',
      );
      expect(added).toHaveLength(1);
      for (let i = 0; i < 2; i++) {
        await h.clock.advance(2_000);
        await pollStream(payments, deps, 't');
      }
      const told = h.publisher.events
        .slice(from)
        .filter((event) => event.subject === added[0]!.record.Id);
      expect(told.map((event) => event.type)).toEqual(['paymentRequest.created']);
    } finally {
      h.sim.controls.setFaults({ script: [] });
      await writeThrough.close();
    }
  });

  describe('in one process, through its gate (change-bridge start)', () => {
    /** The store of `deps`, counting the conditional snapshot writes. */
    function countingStore(counts: { replaced: number }): StateStore {
      return new Proxy(deps.store, {
        get(target, property, receiver) {
          const method = Reflect.get(target, property, receiver);
          if (property !== 'replaceSnapshots') return method;
          return (...args: unknown[]) => {
            counts.replaced += 1;
            return Reflect.apply(method as (...a: unknown[]) => unknown, target, args);
          };
        },
      });
    }

    it('a live page with no proxied write of its stream stores its snapshots in batches, without conditions', async () => {
      const customer = nextCustomer();
      const gate = new SnapshotWriteGate();
      const counts = { replaced: 0 };
      await h.clock.advance(10_000);
      await hotelChange(customer, HOTEL);
      const from = h.publisher.events.length;
      await poll({ snapshotGate: gate, store: countingStore(counts) });
      expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([HOTEL]);
      expect(await storedNotes(customer)).toBe(HOTEL);
      expect(counts.replaced).toBe(0);
      // Without a gate (AWS: the proxy in another process) the same page is stored with conditions.
      await hotelChange(customer, LATER);
      await poll({ store: countingStore(counts) });
      expect(counts.replaced).toBeGreaterThan(0);
    });

    it('a write while a page is between judging and publishing waits until the page is stored, then tells the write after it', async () => {
      const customer = nextCustomer();
      const gate = new SnapshotWriteGate();
      const writeThrough = proxy({ snapshotGate: gate });
      try {
        await h.clock.advance(10_000);
        await hotelChange(customer, HOTEL);
        const from = h.publisher.events.length;
        const { publisher: holding, atPublish, release } = pageHeldAtPublish(customer);
        const polled = poll({ snapshotGate: gate, publisher: holding });
        await atPublish;
        let written = false;
        const writing = writeThrough
          .forward('customers/update', { CustomerId: customer, Notes: PROXY })
          .then((result) => {
            written = true;
            return result;
          });
        // The connector applies the write; the proxy then waits for the page held at its publish.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(written).toBe(false);
        release();
        await polled;
        expect((await writing).status).toBe(200);
        expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([HOTEL, PROXY]);
        expect(await storedNotes(customer)).toBe(PROXY);
        await poll({ snapshotGate: gate });
        await poll({ snapshotGate: gate });
        expect(notesOf(h.publisher.events.slice(from), customer)).toEqual([HOTEL, PROXY]);
      } finally {
        await writeThrough.close();
      }
    });

    it('a write that stops waiting for a page held past its wait leaves that page to store with conditions: the snapshot and the last event keep the write', async () => {
      const customer = nextCustomer();
      // The gate of start, with the write's wait for pages cut from 30 s to 200 ms.
      class ShortWaits extends SnapshotWriteGate {
        override openWrite(streamId: string) {
          return super.openWrite(streamId, 200);
        }
      }
      const gate = new ShortWaits();
      const writeThrough = proxy({ snapshotGate: gate });
      try {
        await h.clock.advance(10_000);
        await hotelChange(customer, HOTEL);
        const from = h.publisher.events.length;
        const { publisher: holding, atPublish, release } = pageHeldAtPublish(customer);
        const polled = poll({ snapshotGate: gate, publisher: holding });
        await atPublish;
        // The page is held (its publisher stalls) past the write's wait: the write goes on.
        expect(
          (await writeThrough.forward('customers/update', { CustomerId: customer, Notes: PROXY }))
            .status,
        ).toBe(200);
        expect(await storedNotes(customer)).toBe(PROXY);
        release();
        await polled;
        // The page's older version went out after the write's: the write is told again last,
        // and the page did not store its older version over the write's.
        expect(await storedNotes(customer)).toBe(PROXY);
        expect(notesOf(h.publisher.events.slice(from), customer).at(-1)).toBe(PROXY);
        const settled = h.publisher.events.length;
        await poll({ snapshotGate: gate });
        await poll({ snapshotGate: gate });
        // Before, the page stored its older version over the write's, and the next poll
        // published the write a second time.
        expect(notesOf(h.publisher.events.slice(settled), customer)).toEqual([]);
      } finally {
        await writeThrough.close();
      }
    });

    it('a write whose connector call took the time its answer had does not wait for a page: it answers, and the page stores with conditions', async () => {
      const customer = nextCustomer();
      const gate = new SnapshotWriteGate();
      const http = createUndiciTransport();
      // The connector answers as the proxy's answer falls due (25 s on the test's clock).
      const slowConnector: HttpTransport = {
        postJson: async (url, text, init) => {
          const answer = await http.postJson(url, text, init);
          await h.clock.advance(PROXY_ANSWER_MS);
          return answer;
        },
        close: () => http.close(),
      };
      const writeThrough = proxy({ snapshotGate: gate, transport: slowConnector });
      try {
        await h.clock.advance(10_000);
        await hotelChange(customer, HOTEL);
        const from = h.publisher.events.length;
        const { publisher: holding, atPublish, release } = pageHeldAtPublish(customer);
        const polled = poll({ snapshotGate: gate, publisher: holding });
        await atPublish;
        const result = await writeThrough.forward('customers/update', {
          CustomerId: customer,
          Notes: PROXY,
        });
        // Answered with the page still held: no wait past the answer's time.
        expect(result.status).toBe(200);
        release();
        await polled;
        expect(await storedNotes(customer)).toBe(PROXY);
        const told = notesOf(h.publisher.events.slice(from), customer);
        expect(told.at(-1)).toBe(PROXY);
      } finally {
        await writeThrough.close();
      }
    });
  });
});
