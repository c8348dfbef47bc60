import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type PollHarness, pollUntilCaughtUp, startPollHarness } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  // Deletes and restores leave `UpdatedUtc` where it was; each mutation shows a second after its
  // stamp, so a delete made as the deletion read is asked falls inside the read's window.
  harness = await startPollHarness('small', 97, {
    deletesMoveUpdatedUtc: false,
    commitLagMs: 1000,
  });
});
afterAll(async () => {
  await harness?.close();
});

/** `client`, running `beforeDeletionRead` once just before its first request on `DeletedUtc`. */
function withHookOnDeletionRead(
  client: ConnectorClient,
  beforeDeletionRead: () => void,
): ConnectorClient {
  let pending = true;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'paginate' || typeof value !== 'function') return value;
      return (operation: string, body: Record<string, unknown>, options: unknown) => {
        if (pending && body.DeletedUtc !== undefined) {
          pending = false;
          beforeDeletionRead();
        }
        return value.call(target, operation, body, options);
      };
    },
  });
}

/**
 * The overlap memory passes over a record the next window re-reads byte for byte as the last
 * window stored it, while the stream's watermark is the one that window committed. The
 * customers' deletion read writes tombstones under that same watermark: a customer it finds
 * deleted, then restored as it was without `UpdatedUtc` moving, is re-read by the next window's
 * overlap exactly as remembered, and must be judged (against its tombstone: created), not
 * passed over.
 */
describe('a customer deleted by the deletion read, then restored as it was', () => {
  it('is published as created by the next window that re-reads it', async () => {
    const stream = harness.streamOf('customer');
    const { definition } = stream;
    await pollUntilCaughtUp(definition, stream.deps);
    const model = harness.sim.controls.model;
    const customer = [...model.customers.all()].find((e) => e.record.IsActive)!;
    const id = customer.record.Id;
    // The deletion read is due at the next poll.
    await harness.clock.advance(16 * 60_000);
    model.update(model.customers, 'customer', id, { Notes: 'read, then deleted' });
    await harness.clock.advance(500);
    harness.publisher.events.length = 0;

    // Read live by the window, then deleted before the deletion read asks: found deleted there.
    const deps: PollDeps = {
      ...stream.deps,
      client: withHookOnDeletionRead(stream.deps.client, () =>
        model.softDelete(model.customers, 'customer', id, {
          IsActive: false,
          ActivityState: 'Deleted',
        }),
      ),
    };
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
      'customer.updated',
      'customer.deleted',
    ]);

    harness.publisher.events.length = 0;
    model.restore(model.customers, 'customer', id, { IsActive: true, ActivityState: 'Active' });
    await harness.clock.advance(500);
    expect(await pollStream(definition, stream.deps, 't')).toMatchObject({ kind: 'polled' });
    expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
      'customer.created',
    ]);
  });
});
