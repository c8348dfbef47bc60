import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import {
  commitObservations,
  DIFF_SLICE_RECORDS,
  publishObservations,
} from '../../shared/polling/commit-changes.ts';
import { observe } from '../../shared/polling/page-changes.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { PublishOptions } from '../../shared/publish/publisher.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { SNAPSHOT_MAX_BYTES } from '../../shared/state/state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);

const customers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    Id: `c-${String(i).padStart(4, '0')}`,
    LastName: `Customer ${i}`,
    UpdatedUtc: '2026-11-25T07:59:00Z',
  }));

describe('publishObservations', () => {
  it('diffs a full page in slices, letting the event loop turn between them, and publishes it whole in order', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const [definition] = streamDefinitions('main', settings);
    const client = createConnectorClient(
      { baseUrl: 'http://connector.test', clientToken: 'c', accessToken: 'a', client: 'test' },
      { clock },
    );
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
    const changes = await publishObservations(definition!, deps, observe('customer', page), true);
    counting = false;

    expect(turns).toBeGreaterThanOrEqual(page.length / DIFF_SLICE_RECORDS - 1);
    expect(changes.published).toBe(1000);
    expect(changes.writes.map((w) => w.entityId)).toEqual(page.map((c) => c.Id));
    const published = (deps.publisher as unknown as { events: { data: { entityId: string } }[] })
      .events;
    expect(published.map((e) => e.data.entityId)).toEqual(page.map((c) => c.Id));
  });

  it('stores the rest of a page when one record is too large for a stored item, so the page commits', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const [definition] = streamDefinitions('main', settings);
    const client = createConnectorClient(
      { baseUrl: 'http://connector.test', clientToken: 'c', accessToken: 'a', client: 'test' },
      { clock },
    );
    const store = new MemoryStateStore();
    const deps = collectingPollDeps(store, client, clock, settings);
    const huge = {
      Id: 'c-huge',
      LastName: 'Huge',
      Notes: 'x'.repeat(SNAPSHOT_MAX_BYTES),
      UpdatedUtc: '2026-11-25T07:59:00Z',
    };
    const page = [...customers(2), huge];

    // A store refuses the whole batch for one record over the item limit: the page, and with
    // it the window and every later change of the stream, would fail on every poll.
    await commitObservations(definition!, deps, observe('customer', page), true);
    const stored = await store.getSnapshots(definition!.streamId, ['c-0000', 'c-0001', 'c-huge']);

    expect([...stored.keys()].sort()).toEqual(['c-0000', 'c-0001']);
  });

  it('publishes with the poll invocation deadline, so retries of throttled entries never wait past it', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const [definition] = streamDefinitions('main', settings);
    const client = createConnectorClient(
      { baseUrl: 'http://connector.test', clientToken: 'c', accessToken: 'a', client: 'test' },
      { clock },
    );
    const given: (PublishOptions | undefined)[] = [];
    const deps = {
      ...collectingPollDeps(new MemoryStateStore(), client, clock, settings),
      deadline: T0 + 90_000,
      publisher: {
        publish: async (events: readonly unknown[], options?: PublishOptions) => {
          given.push(options);
          return { published: events.length, thinned: 0, failures: [] };
        },
      },
    };

    await publishObservations(definition!, deps, observe('customer', customers(2)), true);

    expect(given).toEqual([{ lane: 'live', deadline: T0 + 90_000 }]);
  });
});
