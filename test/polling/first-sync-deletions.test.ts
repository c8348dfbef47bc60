import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityRecord } from '../../shared/changes/entity-types.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type PollHarness, startPollHarness, storedIds } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 53, { deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await harness?.close();
});

/**
 * `client` calling `onPage` on each page of a read on `UpdatedUtc` (a window's) comes back
 * (before it is handed on), with the records it held and how many such pages came before.
 */
function onWindowPages(
  client: PollDeps['client'],
  onPage: (records: EntityRecord[], index: number) => Promise<void>,
): PollDeps['client'] {
  let index = 0;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'paginate' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const pages = value.apply(target, args) as AsyncIterable<{ items: unknown[] }>;
        if (!(args[1] as { UpdatedUtc?: unknown }).UpdatedUtc) return pages;
        return (async function* () {
          for await (const page of pages) {
            // Before the page is handed on: a consumer done with its last page stops here.
            await onPage(page.items as EntityRecord[], index++);
            yield page;
          }
        })();
      };
    },
  });
}

/** Soft-deletes `id` of `entityType` in the simulator, by the record's own delete flag. */
function softDelete(entityType: 'customer' | 'accountingCategory', id: string): void {
  const model = harness.sim.controls.model;
  if (entityType === 'customer')
    model.softDelete(model.customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
  else model.softDelete(model.accountingCategories, 'accountingCategory', id, { IsActive: false });
}

/**
 * A record deleted (its `UpdatedUtc` unmoved) while its stream's first sync is still paging,
 * after that sync read it, is in no later window. Customers are found deleted by the read on
 * `DeletedUtc` every 15 minutes, which must reach back over the sync; the streams swept every
 * hour compare every stored id with the live ones, and find it all the same.
 */
describe.each([
  { entityType: 'customer', pageCount: 20, periodMinutes: 15 },
  { entityType: 'accountingCategory', pageCount: 2, periodMinutes: 60 },
] as const)(
  'a $entityType deleted during its first sync, after the sync read it',
  ({ entityType, pageCount, periodMinutes }) => {
    it('is published as deleted once polls go past its deletion period', async () => {
      const { definition, deps } = harness.streamOf(entityType);
      let deletedId: string | undefined;
      let readAt: number | undefined;
      // Each page takes 10 s: the first sync spans minutes. The first record read is deleted two
      // pages later.
      const client = onWindowPages(deps.client, async (records, index) => {
        if (deletedId === undefined && records.length > 0) {
          deletedId = records[0]!.Id as string;
          readAt = index;
        }
        if (readAt !== undefined && index === readAt + 2) softDelete(entityType, deletedId!);
        await harness.clock.advance(10_000);
      });
      const outcome = await pollStream(definition, { ...deps, client, pageCount }, 't');
      expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
      const deletedIn = (await storedIds(deps, definition.streamId)).includes(deletedId!);
      expect(deletedIn).toBe(true);

      for (let minute = 0; minute <= periodMinutes + 5; minute++) {
        await harness.clock.advance(60_000);
        await pollStream(definition, deps, 't');
      }
      expect(
        harness.publisher.events
          .filter((e) => e.type === `${entityType}.deleted`)
          .map((e) => e.subject),
      ).toEqual([deletedId]);
    });
  },
);
