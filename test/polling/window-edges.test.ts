import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type PagedCustomerStream, startPagedCustomerStream } from './paged-customer-stream.ts';

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
  let h: PagedCustomerStream;

  beforeAll(async () => {
    h = await startPagedCustomerStream({ overlap });
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    expect(h.deps.publisher.events).toEqual([]);
  }, 60_000);

  afterAll(() => h.close());

  const model = () => h.sim.controls.model;
  const customers = () => [...model().customers.all()].filter((e) => e.record.IsActive);
  const update = (id: string, notes: string) =>
    model().update(model().customers, 'customer', id, { Notes: notes });
  const softDelete = (id: string) =>
    model().softDelete(model().customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
  async function poll(): Promise<EntityEvent[]> {
    const before = h.deps.publisher.events.length;
    await h.clock.advance(1000);
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
    });
    return h.deps.publisher.events.slice(before);
  }

  it('reports a change stamped exactly at the end of a window once, in the window starting there', async () => {
    const [target] = customers();
    await h.clock.advance(1000);
    update(target!.record.Id, 'stamped at the window end');
    // The window of this poll ends at the change's UpdatedUtc: it is not in it.
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ kind: 'polled' });
    const stream = await h.deps.store.getStream(h.definition.streamId);
    expect(stream?.watermark).toBe(target!.record.UpdatedUtc);
    expect(h.deps.publisher.events.filter((e) => e.subject === target!.record.Id)).toEqual([]);
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
    await h.clock.advance(1000);
    h.afterNextAnswer(() => {
      update(onFirstPage, 'changed again after its page was read');
      update(laterA!, 'changed again before its page was read');
      softDelete(laterB!);
    });
    const before = h.deps.publisher.events.length;
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    const paged = h.deps.publisher.events.slice(before);
    expect(h.hookPending()).toBe(false);
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
