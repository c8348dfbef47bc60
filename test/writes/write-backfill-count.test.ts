import { afterAll, beforeAll, expect, it } from 'vitest';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { polledBackfill } from '../admin/support/polled-backfill.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { simulatorConnector } from './support/simulator-writes.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

it("counts a write-through's events in the running emit backfill of its stream", async () => {
  const on = await polledBackfill(sim, { entity: 'customer', synced: true });
  const stream = streamDefinitions(
    'main',
    pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, sim.clock.now()),
  )[0]!;
  const held: string[] = [];
  for await (const page of on.state.scanSnapshots(stream.streamId))
    held.push(...page.filter((s) => !s.deleted).map((s) => s.entityId));
  const writeThrough = createWriteThrough({
    connectionId: 'main',
    connector: simulatorConnector(sim.sim),
    scope: stream.scope,
    publisher: on.publisher,
    state: on.state,
    backfills: on.backfills,
    streams: [stream],
    clock: sim.clock,
  });
  await sim.clock.advance(5_000);
  const id = await on.start();
  await sim.clock.advance(2_000);
  // The pass has read nothing yet: the write sends the customer's backfill `created` first.
  const written = await writeThrough.forward('customers/update', {
    CustomerId: held.at(-1)!,
    Notes: 'written during the backfill',
  });
  expect(written.status).toBe(200);
  expect(written.events).toBe(2);
  await sim.clock.advance(2_000);
  await on.poll();
  const created = on.publisher.events.filter((e) => e.type === 'customer.created');
  expect((await on.job(id)).eventsPublished).toBe(created.length);

  // The pass's last two events wait: the job's deliveries are not done.
  const last = on.publisher.events.indexOf(created.at(-1)!);
  const waiting = on.publisher.events.splice(last - 1, 2);
  await on.dispatch();
  const partial = await on.job(id);
  expect(partial.eventsQueued).toBe(2);
  expect(partial.deliveryDone).toBe(false);

  on.publisher.events.push(...waiting);
  await on.dispatch();
  const job = await on.job(id);
  expect(job).toMatchObject({ eventsQueued: 0, deliveryDone: true });
  expect(job.webhooksDelivered).toBe(on.publisher.events.length);
  await on.close();
});
