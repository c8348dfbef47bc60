import type { RunningSimulator } from '../../shared/simulator/simulator.ts';
import type { ContentAt } from '../polling/journal-oracle.ts';
import { stableContent } from '../polling/journal-oracle.ts';

/** The simulator model's record set of each entity type the oracle compares by content. */
export const MODEL_SETS: Readonly<Record<string, string>> = {
  customer: 'customers',
  resource: 'resources',
  accountNote: 'accountNotes',
  accountingCategory: 'accountingCategories',
  billingAutomation: 'billingAutomations',
  loyaltyMembership: 'loyaltyMemberships',
  paymentRequest: 'paymentRequests',
  reservationGroup: 'reservationGroups',
  productCategory: 'productCategories',
  resourceCategoryImageAssignment: 'resourceCategoryImageAssignments',
  export: 'exports',
};

type RecordSets = Record<
  string,
  { all(): Iterable<{ record: unknown }>; keyOf(record: unknown): string }
>;

/**
 * The content of every modelled entity now (sorted JSON without UpdatedUtc), for before/after
 * checks. It keeps each record as the model holds it now and writes its JSON only when asked
 * (the oracle asks for the few entities a round mutated, of thousands): the model never changes a
 * record in place, it stores a new object for each change (applyPatch in shared/simulator/model.ts),
 * so a record kept now still holds its content now.
 */
export function modelContent(sim: RunningSimulator): ContentAt {
  const model = sim.controls.model as unknown as RecordSets;
  const records = new Map<string, unknown>();
  for (const [type, set] of Object.entries(MODEL_SETS)) {
    for (const entry of model[set]!.all())
      records.set(`${type}:${model[set]!.keyOf(entry.record)}`, entry.record);
  }
  const content = new Map<string, string>();
  return (type, id) => {
    const key = `${type}:${id}`;
    const known = content.get(key);
    if (known !== undefined || !records.has(key)) return known;
    const written = stableContent(records.get(key));
    content.set(key, written);
    return written;
  };
}
