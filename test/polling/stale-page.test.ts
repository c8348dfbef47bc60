import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

describe('a page read before a write through the proxy, judged after it', () => {
  let h: PollHarness;
  beforeAll(async () => {
    h = await startPollHarness('small', 31);
  });
  afterAll(() => h.close());

  it('emits no change back to the older content: the snapshot the proxy stored is newer', async () => {
    const definition = h.definitions().find((d) => d.streamId === 'sim:customer')!;
    const deps = h.deps('chain');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ caughtUp: true });
    const customer = [...h.sim.controls.model.customers.all()].find(
      (entry) => entry.deletedMs === null && entry.record.IsActive,
    )!.record;
    const connector = {
      baseUrl: h.sim.url,
      clientToken: h.sim.tokens.clientToken,
      accessToken: h.sim.tokens.accessToken,
      client: 'tests',
      rateLimit: false as const,
    };
    const writeThrough = createWriteThrough({
      connectionId: definition.connectionId,
      connector,
      scope: definition.scope,
      publisher: h.publisher,
      state: deps.store,
      streams: h.definitions(),
      clock: h.clock,
    });
    try {
      await h.clock.advance(10_000);
      // A change in the hotel's own application, then a poll whose page holds it...
      const direct = await fetch(`${h.sim.url}/api/connector/v1/customers/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ClientToken: connector.clientToken,
          AccessToken: connector.accessToken,
          Client: 'hotel',
          CustomerId: customer.Id,
          Notes: 'changed in the hotel',
        }),
      });
      expect(direct.status).toBe(200);
      const from = h.publisher.events.length;
      await h.clock.advance(2_000);
      // ...and, while that page is on its way, a write through the proxy.
      let wrote = false;
      const client = new Proxy(deps.client, {
        get(target, property, receiver) {
          if (property !== 'paginate') return Reflect.get(target, property, receiver);
          return async function* (...args: Parameters<ConnectorClient['paginate']>) {
            for await (const page of target.paginate(...args)) {
              if (!wrote && args[0] === 'customers/getAll') {
                wrote = true;
                await h.clock.advance(1_000);
                await writeThrough.forward('customers/update', {
                  CustomerId: customer.Id,
                  Notes: 'written through the proxy',
                });
              }
              yield page;
            }
          };
        },
      });
      await pollStream(definition, { ...deps, client }, 't');
      expect(wrote).toBe(true);
      await h.clock.advance(2_000);
      await pollStream(definition, deps, 't');

      const notes = h.publisher.events
        .slice(from)
        .filter((event: EntityEvent) => event.subject === customer.Id)
        .map((event) => (event.data.current as { Notes?: string } | null)?.Notes);
      // Before, the poll judged the page's older record against the proxy's newer snapshot:
      // customer.updated back to "changed in the hotel", then forward again at the next poll.
      expect(notes).toEqual(['written through the proxy']);
    } finally {
      await writeThrough.close();
    }
  });
});
