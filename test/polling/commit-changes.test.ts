import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import {
  commitObservations,
  DIFF_SLICE_RECORDS,
  publishObservations,
  storeChanges,
} from '../../shared/polling/commit-changes.ts';
import { observe } from '../../shared/polling/page-changes.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { forgettingSnapshotHashes, SnapshotHashes } from '../../shared/state/snapshot-hashes.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);

const customers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    Id: `c-${String(i).padStart(4, '0')}`,
    LastName: `Customer ${i}`,
    UpdatedUtc: '2026-11-25T07:59:00Z',
  }));

/** The customer stream of connection `main`, its settings and a client that is never called. */
function customerStream() {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
  const [definition] = streamDefinitions('main', settings);
  const client = createConnectorClient(
    { baseUrl: 'http://connector.test', clientToken: 'c', accessToken: 'a', client: 'test' },
    { clock },
  );
  return { definition: definition!, client, clock, settings };
}

describe('publishObservations', () => {
  it('diffs a full page in slices, letting the event loop turn between them, and publishes it whole in order', async () => {
    const { definition, client, clock, settings } = customerStream();
    const deps = collectingPollDeps(new MemoryStateStore(), client, clock, settings);
    const page = customers(1000);

    // Counts the turns of the event loop (macrotasks) while the page is diffed and published.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const changes = await publishObservations(definition, deps, observe('customer', page), true);
    counting = false;

    expect(turns).toBeGreaterThanOrEqual(page.length / DIFF_SLICE_RECORDS - 1);
    expect(changes.published).toBe(1000);
    expect(changes.writes.map((w) => w.entityId)).toEqual(page.map((c) => c.Id));
    const published = (deps.publisher as unknown as { events: { data: { entityId: string } }[] })
      .events;
    expect(published.map((e) => e.data.entityId)).toEqual(page.map((c) => c.Id));
  });

  describe('with the snapshot hashes the process remembers', () => {
    function setUp() {
      const { definition, client, clock, settings } = customerStream();
      const inner = new MemoryStateStore();
      const read: string[] = [];
      const counting = Object.assign(Object.create(inner), {
        getSnapshots: (streamId: string, ids: readonly string[]) => {
          read.push(...ids);
          return inner.getSnapshots(streamId, ids);
        },
      });
      const snapshotHashes = new SnapshotHashes();
      const store = forgettingSnapshotHashes(counting, snapshotHashes);
      const deps = {
        ...collectingPollDeps(store, client, clock, settings),
        snapshotHashes,
      };
      const published = () =>
        (deps.publisher as unknown as { events: { type: string; data: { entityId: string } }[] })
          .events;
      /** Detects a page and stores its snapshots, as a window does. */
      const poll = async (page: Record<string, unknown>[]) => {
        read.length = 0;
        const changes = await publishObservations(
          definition,
          deps,
          observe('customer', page as never),
          true,
        );
        await storeChanges(definition, deps, changes);
        return changes;
      };
      return { definition, deps, store, snapshotHashes, read, published, poll };
    }

    it('drops a record re-read unchanged (a touch of UpdatedUtc included) before reading the store, and reads a changed one', async () => {
      const { read, published, poll } = setUp();
      const page = customers(3);
      await poll(page);
      expect(published().map((e) => e.type)).toEqual(Array(3).fill('customer.created'));

      const again = await poll([
        { ...page[0]!, UpdatedUtc: '2026-11-25T07:59:30Z' },
        page[1]!,
        { ...page[2]!, LastName: 'Renamed' },
      ]);
      expect(read).toEqual([page[2]!.Id]);
      expect(again.published).toBe(1);
      expect(published().at(-1)).toMatchObject({
        type: 'customer.updated',
        data: { entityId: page[2]!.Id, previous: page[2], current: { LastName: 'Renamed' } },
      });
    });

    it('after a reset, a re-read record is new again: read, and published as created', async () => {
      const { definition, store, read, published, poll } = setUp();
      const page = customers(2);
      await poll(page);
      await store.deleteStream(definition.streamId);

      const again = await poll(page);
      expect(read).toEqual(page.map((c) => c.Id));
      expect(again.published).toBe(2);
      expect(
        published()
          .slice(-2)
          .map((e) => e.type),
      ).toEqual(['customer.created', 'customer.created']);
    });

    it('notes nothing in bulk work (a first sync, a backfill, a sweep: commitObservations)', async () => {
      const { definition, deps, snapshotHashes } = setUp();
      await commitObservations(definition, deps, observe('customer', customers(3)), true);
      expect(snapshotHashes.size).toBe(0);
    });
  });
});
