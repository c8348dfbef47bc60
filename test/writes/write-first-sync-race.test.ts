import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { backfillProgress, startBackfill } from '../../shared/admin/backfill.ts';
import { MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { seededRandom } from '../../shared/clock.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { SnapshotWriteGate } from '../../shared/polling/snapshot-write-gate.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { MemoryDeliveryCounter } from '../../shared/webhooks/delivery-counter.ts';
import { createWriteThrough, type WriteThrough } from '../../shared/writes/write-through.ts';
import { type CollectingPublisher, collectingPollDeps } from '../polling/poll-harness.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { simulatorConnector } from './support/simulator-writes.ts';

/**
 * A write through the proxy while the customers' first sync runs: the page that read the
 * customer before the write stores its snapshot after it. Each test places the proxy's whole
 * write between the page's publish and its store (the observer's afterPublish), with the proxy
 * in another process (no gate: AWS) or in the poller's (the gate of change-bridge start).
 */
let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

const HOTEL = 'changed in the hotel before the first sync';
const PROXY = 'written through the proxy';

const notesOf = (events: readonly EntityEvent[], subject: string) =>
  events
    .filter((event) => event.subject === subject)
    .map((event) => (event.data.current as { Notes?: string } | null)?.Notes);

/** A customer stream not synced yet, over a store of its own, and a proxy writing to it. */
function unsyncedCustomers(initialSync: 'baseline' | 'emit', gate?: SnapshotWriteGate) {
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: 'customer', INITIAL_SYNC: initialSync },
    sim.clock.now(),
  );
  const streams: StreamDefinition[] = streamDefinitions('main', settings);
  const definition = streams[0]!;
  const counts = { replaced: 0 };
  const state = new MemoryStateStore();
  // The poller's store, counting its conditional snapshot writes.
  const pollerStore = new Proxy(state, {
    get(target, property, receiver) {
      const method = Reflect.get(target, property, receiver);
      if (property !== 'replaceSnapshots') return method;
      return (...args: unknown[]) => {
        counts.replaced += 1;
        return Reflect.apply(method as (...a: unknown[]) => unknown, target, args);
      };
    },
  }) as StateStore;
  const deps: PollDeps & { publisher: CollectingPublisher } = {
    ...collectingPollDeps(pollerStore, sim.client, sim.clock, settings),
    ...(gate ? { snapshotGate: gate } : {}),
  };
  const writeThrough = createWriteThrough({
    connectionId: 'main',
    connector: simulatorConnector(sim.sim),
    scope: definition.scope,
    publisher: deps.publisher,
    state,
    streams,
    clock: sim.clock,
    ...(gate ? { snapshotGate: gate } : {}),
  });
  const storedNotes = async (customer: string) =>
    (
      (await state.getSnapshots(definition.streamId, [customer])).get(customer)?.record as
        | { Notes?: string }
        | undefined
    )?.Notes;
  const admin = {
    state,
    streams: async () => streams,
    windows: settings.windows,
    backfills: new MemoryBackfillJobStore(),
    deliveryCounter: new MemoryDeliveryCounter(),
    clock: sim.clock,
    random: seededRandom(7),
  } as unknown as AdminDeps;
  return { definition, deps, state, admin, writeThrough, storedNotes, counts };
}

/** A customer changed in the hotel a moment ago: the first sync's last window reads it. */
async function recentlyChangedCustomer(): Promise<string> {
  const customer = [...sim.sim.controls.model.customers.all()].find(
    (entry) => entry.deletedMs === null && entry.record.IsActive && !entry.record.Notes,
  )!.record.Id as string;
  sim.sim.controls.model.update(sim.sim.controls.model.customers, 'customer', customer, {
    Notes: HOTEL,
  });
  await sim.clock.advance(2_000);
  return customer;
}

/** The proxy's write of the customer, a second after the page read it. */
async function write(writeThrough: WriteThrough, customer: string) {
  await sim.clock.advance(1_000);
  const result = await writeThrough.forward('customers/update', {
    CustomerId: customer,
    Notes: PROXY,
  });
  expect(result.status).toBe(200);
}

/** An observer running `run` once, after the page holding the customer published, before it stores. */
function betweenPublishAndStore(customer: string, run: () => Promise<void>) {
  const ran = { done: false };
  const observer = {
    afterPublish: async (_streamId: string, changes: { writes: { entityId: string }[] }) => {
      if (ran.done || !changes.writes.some((write) => write.entityId === customer)) return;
      ran.done = true;
      await run();
    },
  };
  return { observer, ran };
}

describe("a write through the proxy during a stream's first sync", () => {
  it.each(['baseline', 'emit'] as const)(
    '%s first sync, the proxy in another process (AWS): the page does not store its older version over the write, and the write is told once',
    async (initialSync) => {
      const customer = await recentlyChangedCustomer();
      const { definition, deps, writeThrough, storedNotes } = unsyncedCustomers(initialSync);
      try {
        const { observer, ran } = betweenPublishAndStore(customer, () =>
          write(writeThrough, customer),
        );
        const synced = await pollStream(definition, { ...deps, observer }, 'test');
        expect(synced).toMatchObject({ kind: 'polled', caughtUp: true });
        expect(ran.done).toBe(true);
        // Before, the first sync's page stored its older record over the write's.
        expect(await storedNotes(customer)).toBe(PROXY);
        for (let i = 0; i < 2; i++) {
          await sim.clock.advance(2_000);
          await pollStream(definition, deps, 'test');
        }
        const told = notesOf(deps.publisher.events, customer);
        // Before, the next live poll published the write again, under a second id.
        expect(told.filter((notes) => notes === PROXY)).toEqual([PROXY]);
        expect(told.at(-1)).toBe(PROXY);
        expect(told).toEqual(initialSync === 'emit' ? [HOTEL, PROXY] : [PROXY]);
      } finally {
        await writeThrough.close();
      }
    },
  );

  it('in one process (change-bridge start): the write waits for the page read before it, which stores in a batch; the write is told once, after it', async () => {
    let atGate!: (write: { opened: Promise<unknown> }) => void;
    const reachedGate = new Promise<{ opened: Promise<unknown> }>((resolve) => {
      atGate = resolve;
    });
    class NotingGate extends SnapshotWriteGate {
      override openWrite(streamId: string, waitMs?: number) {
        const opened = super.openWrite(streamId, waitMs);
        atGate({ opened });
        return opened;
      }
    }
    const gate = new NotingGate();
    const customer = await recentlyChangedCustomer();
    const { definition, deps, writeThrough, storedNotes, counts } = unsyncedCustomers(
      'baseline',
      gate,
    );
    try {
      let writing: Promise<void> | undefined;
      // The page holding the customer is held after its publish until the write reached the
      // gate (sent to the connector, about to read the snapshot), and, if the gate let the
      // write go on at once, until the write is recorded.
      const { observer, ran } = betweenPublishAndStore(customer, async () => {
        writing = write(writeThrough, customer);
        const { opened } = await reachedGate;
        let passed = false;
        void opened.then(() => {
          passed = true;
        });
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (passed) await writing;
      });
      const synced = await pollStream(definition, { ...deps, observer }, 'test');
      expect(synced).toMatchObject({ kind: 'polled', caughtUp: true });
      expect(ran.done).toBe(true);
      await writing;
      expect(await storedNotes(customer)).toBe(PROXY);
      // The page stored in batches, as a first sync does with no write: no conditional write.
      expect(counts.replaced).toBe(0);
      for (let i = 0; i < 2; i++) {
        await sim.clock.advance(2_000);
        await pollStream(definition, deps, 'test');
      }
      expect(notesOf(deps.publisher.events, customer)).toEqual([PROXY]);
    } finally {
      await writeThrough.close();
    }
  });

  it('in one process with no write: the first sync stores every page in batches, without conditions', async () => {
    const customer = await recentlyChangedCustomer();
    const { definition, deps, writeThrough, storedNotes, counts } = unsyncedCustomers(
      'baseline',
      new SnapshotWriteGate(),
    );
    try {
      expect(await pollStream(definition, deps, 'test')).toMatchObject({ caughtUp: true });
      expect(await storedNotes(customer)).toBe(HOTEL);
      expect(counts.replaced).toBe(0);
    } finally {
      await writeThrough.close();
    }
  });
});

describe('a write through the proxy during a backfill pass (without --emit)', () => {
  it('the proxy in another process (AWS): the pass page that read the customer before the write does not store its older version over it, and the write is told once', async () => {
    const { definition, deps, state, admin, writeThrough, storedNotes } =
      unsyncedCustomers('baseline');
    try {
      expect(await pollStream(definition, deps, 'test')).toMatchObject({ caughtUp: true });
      // A customer last changed long ago, whose snapshot was lost: the pass judges it against
      // none and stores it again.
      const customer = [...sim.sim.controls.model.customers.all()].find(
        (entry) =>
          entry.deletedMs === null &&
          entry.record.IsActive &&
          !entry.record.Notes &&
          Date.parse(entry.record.UpdatedUtc as string) < sim.clock.now() - 86_400_000,
      )!.record.Id as string;
      await state.deleteSnapshots(definition.streamId, [customer]);
      await sim.clock.advance(5_000);
      const job = await startBackfill({ emit: false }, admin);
      await sim.clock.advance(2_000);
      const { observer, ran } = betweenPublishAndStore(customer, () =>
        write(writeThrough, customer),
      );
      expect(await pollStream(definition, { ...deps, observer }, 'test')).toMatchObject({
        caughtUp: true,
      });
      expect(ran.done).toBe(true);
      expect((await backfillProgress(job, admin)).done).toBe(true);
      // Before, the pass's page stored its older record over the write's.
      expect(await storedNotes(customer)).toBe(PROXY);
      for (let i = 0; i < 2; i++) {
        await sim.clock.advance(2_000);
        await pollStream(definition, deps, 'test');
      }
      // Before, the next live poll published the write again, under a second id.
      expect(notesOf(deps.publisher.events, customer)).toEqual([PROXY]);
    } finally {
      await writeThrough.close();
    }
  });
});
