import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../shared/connector/records/index.ts';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { type PollHarness, startPollHarness, storedIds } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 43);
});
afterAll(async () => {
  await harness?.close();
});

/**
 * connector-api.md names a payment request's states (Pending, Completed, Canceled, Expired) but
 * not its transitions, nor whether they move `UpdatedUtc`: an expiry, which time alone brings,
 * may leave it where it was, and no `UpdatedUtc` window then returns the record. The stream's
 * reconciliation sweep reads every stored payment request by id all the same, and judges what
 * it reads.
 */
describe('a payment request whose state changes without its UpdatedUtc moving', () => {
  it('is published as updated by the next sweep', async () => {
    const definitions = harness
      .definitions()
      .filter((d) => !d.streamId.startsWith('hotel:'))
      .map((d) => ({ ...d, phaseMs: 0 }));
    const payment = definitions.find((d) => d.spec.entityType === 'paymentRequest')!;
    const deps = harness.deps('chain');
    await pollConnectionStreams([payment.streamId], definitions, deps, 't');

    const model = harness.sim.controls.model;
    const ids = await storedIds(deps, payment.streamId);
    const entry = ids
      .map((id) => model.paymentRequests.get(id)!)
      .find((e) => e.record.State === 'Pending')!;
    const before: PaymentRequest = entry.record;
    entry.record = { ...before, State: 'Expired' };
    await harness.clock.advance(61 * 60_000);
    harness.publisher.events.length = 0;

    const { outcomes } = await pollConnectionStreams([payment.streamId], definitions, deps, 't');
    expect(outcomes).toMatchObject([{ kind: 'polled' }]);
    const events = harness.publisher.events.filter((e) => e.subject === before.Id);
    expect(events.map((e) => [e.type, e.data.changedFields])).toEqual([
      ['paymentRequest.updated', ['State']],
    ]);
    expect(events[0]!.data.current).toMatchObject({
      State: 'Expired',
      UpdatedUtc: before.UpdatedUtc,
    });

    await harness.clock.advance(61 * 60_000);
    harness.publisher.events.length = 0;
    await pollConnectionStreams([payment.streamId], definitions, deps, 't');
    expect(harness.publisher.events.filter((e) => e.subject === before.Id)).toEqual([]);
  });
});
