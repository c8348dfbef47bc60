import type { JournalEntry } from '../../shared/simulator/journal.ts';
import type { RunningSimulator } from '../../shared/simulator/simulator.ts';
import {
  type ContentAt,
  type ExpectedEvent,
  expectedEventsOfRound,
} from '../polling/journal-oracle.ts';
import { MODEL_SETS } from './model-content.ts';

/** Entity types polled by default whose deletes only periodic sweeps find (every 15 min or more). */
const SWEPT_TYPES = new Set(['reservationGroup', 'productCategory', 'paymentRequest']);

/** Whether `entry` deletes a record that only a periodic sweep finds deleted (see SWEPT_TYPES). */
export function sweptDeletion(entry: JournalEntry): boolean {
  return (
    (entry.kind === 'soft-deleted' || entry.kind === 'hard-deleted') &&
    SWEPT_TYPES.has(entry.entityType)
  );
}
/** Entity types a local run does not poll unless configured. */
const NOT_POLLED_BY_DEFAULT = new Set(['export', 'productPrice']);

/** Records each modelled entity's enterprise (image assignments through their category). */
export function recordEnterprises(sim: RunningSimulator, into: Map<string, string>): void {
  const model = sim.controls.model;
  for (const [type, set] of Object.entries(MODEL_SETS)) {
    const records = (
      model as unknown as Record<string, { all(): Iterable<{ record: Record<string, unknown> }> }>
    )[set]!;
    for (const { record } of records.all()) {
      const category =
        type === 'resourceCategoryImageAssignment'
          ? model.resourceCategories.get(String(record.CategoryId))?.record
          : undefined;
      const enterprise = (category?.EnterpriseId ?? record.EnterpriseId) as string | undefined;
      if (enterprise) into.set(`${type}:${String(record.Id)}`, enterprise);
    }
  }
}

/**
 * The events a local bridge polling with the plain AccessToken must deliver for `entries`:
 * the first hotel's records and the chain's own, of the default entity types, without the
 * deletes that only a sweep can find. `enterprises` must hold every entity the entries touch.
 * The entries may span a whole run of polls (see OracleOptions.acrossPolls).
 */
export function expectedLocalEvents(
  sim: RunningSimulator,
  entries: readonly JournalEntry[],
  enterprises: ReadonlyMap<string, string>,
  before: ContentAt,
  after: ContentAt,
): ExpectedEvent[] {
  const hotelId = sim.controls.model.world.enterprises[0]!.Id;
  const visible = (type: string, id: string) =>
    (enterprises.get(`${type}:${id}`) ?? hotelId) === hotelId;
  return expectedEventsOfRound(
    entries.filter(
      (entry) =>
        !NOT_POLLED_BY_DEFAULT.has(entry.entityType) && visible(entry.entityType, entry.entityId),
    ),
    before,
    after,
    { acrossPolls: true },
  ).filter(
    (event) => !(event.type.endsWith('.deleted') && SWEPT_TYPES.has(event.type.split('.')[0]!)),
  );
}
