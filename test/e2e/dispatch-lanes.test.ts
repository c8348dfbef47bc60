import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StreamListSchema } from '../../shared/admin/schemas.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { adminCaller } from '../support/admin-call.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

const SubscriptionSchema = z.object({ secret: z.string() });

describe('the dispatch lanes of change-bridge start', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let running: InProcessBridge;

  const call = adminCaller(() => running.bridge.adminUrl);
  const streamOf = async (entityType: string) =>
    StreamListSchema.parse(await call('GET', '/streams')).streams.find(
      (stream) => stream.entityType === entityType,
    );
  /** Resolves once the stream has published more than `before` events (its poll saved them). */
  const publishedPast = (entityType: string, before: number, what: string) =>
    waitFor(
      async () => ((await streamOf(entityType))?.eventsPublished ?? 0) > before || undefined,
      10_000,
      what,
    );

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    running = await startInProcessBridge(sim, {
      POLL_ENTITIES: 'customer,accountNote',
      POLL_HISTORY_START: '400d',
    });
  });
  afterAll(async () => {
    receiver?.slow(0);
    await running?.close();
    await receiver?.close();
    await sim?.close();
  }, 60_000);

  it('delivers a live change before the events a backfill found, at the same endpoint', async () => {
    await waitFor(
      async () => {
        const streams = StreamListSchema.safeParse(await call('GET', '/streams')).data?.streams;
        return streams?.length === 2 && streams.every((s) => s.initialSyncDone) ? true : undefined;
      },
      30_000,
      'the first syncs',
    );
    // Two deliveries at a time, each answered 400 ms after it came: the backfill's events line up
    // at the endpoint, and what would wait there over 2 s is deferred to about its turn (see
    // planLineDeferrals).
    const { secret } = SubscriptionSchema.parse(
      await call('POST', '/subscriptions', { url: receiver.url, maxConcurrency: 2 }),
    );
    receiver.setSecret(secret);
    receiver.slow(400);
    await call('POST', '/backfill', { entities: ['accountNote'], emit: true });
    await waitFor(
      async () => receiver.received.length > 0 || undefined,
      30_000,
      'a first delivery',
    );

    const publishedBefore = (await streamOf('customer'))?.eventsPublished ?? 0;
    const model = sim.controls.model;
    const [customer] = [...model.customers.all()].filter((e) => e.record.IsActive !== false);
    model.update(model.customers, 'customer', customer!.record.Id, { Notes: 'live change' });
    // Published (the poll saved its count): from here it goes before the backfill's waiting events.
    await publishedPast('customer', publishedBefore, 'the live change to be published');
    const deliveredBefore = receiver.received.length;
    // A note whose `created` still waits: its stream is live again, yet its change must follow.
    const notePublished = await waitFor(
      async () => {
        const stream = await streamOf('accountNote');
        return stream?.initialSyncDone ? stream.eventsPublished : undefined;
      },
      10_000,
      'the backfill to reach the present',
    );
    const note = [...model.accountNotes.all()].filter((e) => e.record.IsActive !== false).at(-1)!;
    model.update(model.accountNotes, 'accountNote', note.record.Id, { Content: 'changed' });
    await publishedPast('accountNote', notePublished, 'the note change to be published');
    await waitFor(
      async () => receiver.received.some((e) => e.type === 'customer.updated') || undefined,
      30_000,
      'the live change to arrive',
    );
    const order = receiver.received.map((e) => e.type);
    const notes = [...model.accountNotes.all()].filter((e) => e.record.IsActive !== false).length;
    expect(notes).toBeGreaterThan(20);
    // The request in flight went first; the live change came next, before the backfill's others.
    expect(order.indexOf('customer.updated')).toBeLessThanOrEqual(deliveredBefore + 2);
    // The endpoint recovers; what was deferred comes back at about the turn its slow pace set.
    receiver.slow(0);
    await waitFor(
      async () =>
        receiver.received.filter((e) => e.type === 'accountNote.created').length >= notes ||
        undefined,
      45_000,
      'every created event of the backfill',
    );
    // Backfill events were still waiting when it went.
    const all = receiver.received.map((e) => e.type);
    expect(all.slice(all.indexOf('customer.updated') + 1)).toContain('accountNote.created');
    await waitFor(
      async () => receiver.received.some((e) => e.type === 'accountNote.updated') || undefined,
      30_000,
      'the note change',
    );
    const ofNote = receiver.received.filter((e) => e.subject === note.record.Id).map((e) => e.type);
    expect(ofNote).toEqual(['accountNote.created', 'accountNote.updated']);
  }, 120_000);
});
