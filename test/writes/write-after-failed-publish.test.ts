import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MultiPublisher } from '../../shared/publish/multi-publisher.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { applyInOrder, Target } from '../polling/patch-receivers.ts';
import { type PollHarness, startPollHarness } from '../polling/poll-harness.ts';

/**
 * A write through the proxy that comes after a poll whose publish failed part way (the bus took
 * the event, the queue did not) and before that poll's retry: the proxy judges against the
 * snapshot the failed poll kept, with its events still to go out.
 */
describe('a write through the proxy after a poll whose publish failed part way', () => {
  let h: PollHarness;
  let definition: StreamDefinition;
  let deps: PollDeps;
  const bus = new Target('eventbridge');
  const queue = new Target('sqs');
  const publisher = new MultiPublisher([bus, queue]);

  beforeAll(async () => {
    h = await startPollHarness('small', 48);
    definition = h.definitions().find((d) => d.streamId === 'sim:customer')!;
    deps = { ...h.deps('chain'), publisher };
    expect(await pollStream(definition, deps, 't')).toMatchObject({ caughtUp: true });
  }, 60_000);
  afterAll(() => h?.close());

  it('sends the poll’s events first, then the write measured from their current', async () => {
    const model = h.sim.controls.model;
    const customer = [...model.customers.all()].find(
      (entry) => entry.deletedMs === null && entry.record.IsActive,
    )!.record;
    const id = customer.Id as string;

    await h.clock.advance(1_000);
    model.update(model.customers, 'customer', id, { Notes: 'changed in the hotel' });
    await h.clock.advance(1_000);
    queue.failing = true;
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'failed' });
    queue.failing = false;
    const [first] = bus.accepted;

    await h.clock.advance(1_000);
    const writeThrough = createWriteThrough({
      connectionId: definition.connectionId,
      connector: {
        baseUrl: h.sim.url,
        clientToken: h.sim.tokens.clientToken,
        accessToken: h.sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      scope: definition.scope,
      publisher,
      state: deps.store,
      streams: h.definitions(),
      clock: h.clock,
    });
    const result = await writeThrough.forward('customers/update', {
      CustomerId: id,
      Notes: 'written through the proxy',
    });
    expect(result.status).toBe(200);

    expect(queue.accepted.map((event) => event.id)).toEqual([first!.id, bus.accepted.at(-1)!.id]);
    expect(queue.accepted[0]).toEqual(first);
    const record = JSON.parse(JSON.stringify(model.customers.get(id)!.record));
    for (const target of [bus, queue]) {
      const { held, unchained } = applyInOrder(target.accepted);
      expect({ target: target.name, held: held.get(id), unchained }).toEqual({
        target: target.name,
        held: record,
        unchained: [],
      });
    }

    // The retried poll finds all of it out: nothing more goes.
    const sent = [bus.accepted.length, queue.accepted.length];
    await h.clock.advance(5_000);
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    expect([bus.accepted.length, queue.accepted.length]).toEqual(sent);
  }, 60_000);
});
