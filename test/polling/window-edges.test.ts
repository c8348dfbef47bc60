import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import { createUndiciTransport } from '../../shared/connector/http-transport.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { OverlapMemory } from '../../shared/polling/overlap-memory.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * design.md, Windows, and the time-filter fact (`StartUtc <= t < EndUtc`): a record stamped
 * exactly at a window's end belongs to the next window, and a record changed while its window
 * is paged (it leaves the window, whose end is fixed) is found by the next one. Simulator,
 * dynalite and the customer stream, on one manual clock; pages of 10.
 */
describe.each([
  { overlap: '0s', label: 'no overlap' },
  { overlap: '5s', label: 'the default overlap' },
])('windows at their edges, with $label and no settle lag', ({ overlap }) => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;
  let dynamo: LocalDynamoDb;
  let client: ConnectorClient;
  let definition: StreamDefinition;
  let deps: PollDeps & { publisher: CollectingPublisher };
  /** Run by the transport once, after the next customers/getAll answer arrives (between pages). */
  let betweenPages: (() => void) | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: 'small', customers: 60, clock, rateLimit: false });
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, 'window-edges');
    const store = new DynamoDbStateStore({
      client: dynamo.client,
      tableName: 'window-edges',
      clock,
    });
    const http = createUndiciTransport();
    client = createConnectorClient(
      {
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      {
        clock,
        transport: {
          async postJson(url, body, options) {
            const answer = await http.postJson(url, body, options);
            const hook = betweenPages;
            betweenPages = undefined;
            hook?.();
            return answer;
          },
          close: () => http.close(),
        },
      },
    );
    const settings = pollSettingsFromEnv(
      {
        POLL_ENTITIES: 'customer',
        POLL_HISTORY_START: '400d',
        POLL_INTERVAL: '1s',
        POLL_OVERLAP: overlap,
        POLL_SETTLE_LAG: '0s',
      },
      clock.now(),
    );
    definition = streamDefinitions('main', settings)[0]!;
    deps = {
      store,
      client,
      publisher: new CollectingPublisher(),
      clock,
      windows: settings.windows,
      pageCount: 10,
      overlapMemory: new OverlapMemory(),
    };
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ caughtUp: true });
    expect(deps.publisher.events).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await client.close();
    await sim.close();
    await dynamo.close();
  });

  const customers = () => [...sim.controls.model.customers.all()].filter((e) => e.record.IsActive);
  const update = (id: string, notes: string) =>
    sim.controls.model.update(sim.controls.model.customers, 'customer', id, { Notes: notes });
  const softDelete = (id: string) =>
    sim.controls.model.softDelete(sim.controls.model.customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
  async function poll(): Promise<EntityEvent[]> {
    const before = deps.publisher.events.length;
    await clock.advance(1000);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
    });
    return deps.publisher.events.slice(before);
  }

  it('reports a change stamped exactly at the end of a window once, in the window starting there', async () => {
    const [target] = customers();
    await clock.advance(1000);
    update(target!.record.Id, 'stamped at the window end');
    // The window of this poll ends at the change's UpdatedUtc: it is not in it.
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    const stream = await deps.store.getStream(definition.streamId);
    expect(stream?.watermark).toBe(target!.record.UpdatedUtc);
    expect(deps.publisher.events.filter((e) => e.subject === target!.record.Id)).toEqual([]);
    const next = await poll();
    expect(next.map((e) => [e.type, e.subject])).toEqual([['customer.updated', target!.record.Id]]);
    expect(next[0]?.data.current).toEqual(target!.record);
    expect(await poll()).toEqual([]);
  });

  it('finds, in the next window, records changed or deleted while their window is paged', async () => {
    // 25 customers change, newest created first: pages of 10, 10 and 5.
    const changed = customers().slice(0, 25);
    for (const entry of changed) update(entry.record.Id, 'first change');
    const byCreation = [...changed].sort((a, b) => b.index - a.index);
    const onFirstPage = byCreation[0]!.record.Id;
    const [laterA, laterB] = byCreation.slice(-2).map((e) => e.record.Id);
    await clock.advance(1000);
    betweenPages = () => {
      update(onFirstPage, 'changed again after its page was read');
      update(laterA!, 'changed again before its page was read');
      softDelete(laterB!);
    };
    const before = deps.publisher.events.length;
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ caughtUp: true });
    const paged = deps.publisher.events.slice(before);
    expect(betweenPages).toBeUndefined();
    expect(paged).toHaveLength(23);
    const after = await poll();
    expect(after.map((e) => [e.type, e.subject]).sort()).toEqual(
      [
        ['customer.deleted', laterB],
        ['customer.updated', laterA],
        ['customer.updated', onFirstPage],
      ].sort(),
    );
    // Every changed customer's last event carries what the service holds now.
    const last = new Map<string, EntityEvent>();
    for (const event of [...paged, ...after]) last.set(event.subject, event);
    expect(last.size).toBe(25);
    for (const entry of changed) {
      const event = last.get(entry.record.Id)!;
      expect(event.data.current).toEqual(entry.record.IsActive ? entry.record : null);
    }
    expect(await poll()).toEqual([]);
  });
});
