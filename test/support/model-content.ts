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

/** The content of every modelled entity now (sorted JSON without UpdatedUtc), for before/after checks. */
export function modelContent(sim: RunningSimulator): ContentAt {
  const model = sim.controls.model as unknown as RecordSets;
  const content = new Map<string, string>();
  for (const [type, set] of Object.entries(MODEL_SETS)) {
    for (const entry of model[set]!.all())
      content.set(`${type}:${model[set]!.keyOf(entry.record)}`, stableContent(entry.record));
  }
  return (type, id) => content.get(`${type}:${id}`);
}
