import type { EntityRecord } from '../../changes/entity-types.ts';
import { isJsonObject } from '../../json-object.ts';
import { MINUTE_MS, type SnapshotPollSpec } from '../poll-spec.ts';

/** The items key of taxEnvironments/getAll. */
const TAX_ENVIRONMENTS_KEY = 'TaxEnvironments';

/** The codes an item naming the environment carries: its `Code` and its `TaxationCodes`. */
function codesOf(environment: EntityRecord): Set<string> {
  const codes = new Set<string>();
  if (typeof environment.Code === 'string') codes.add(environment.Code);
  const taxations = environment.TaxationCodes;
  if (Array.isArray(taxations))
    for (const code of taxations) if (typeof code === 'string') codes.add(code);
  return codes;
}

function names(item: unknown, codes: ReadonlySet<string>): boolean {
  if (!isJsonObject(item)) return false;
  for (const value of Object.values(item))
    if (typeof value === 'string' && codes.has(value)) return true;
  return false;
}

/**
 * The environments of a taxEnvironments/getAll response, each with the response's other lists
 * folded in under their own keys, cut to the items that name the environment (one of the item's
 * top-level strings is the environment's `Code` or one of its `TaxationCodes`). connector-api.md
 * says the response carries taxations and tax rates (a rate carries the code of its taxation)
 * but shows neither their field names nor their nesting: listed beside the environments, a rate
 * that changes would otherwise change no environment. An environment that carries a list of that
 * key itself keeps its own; an item that names no environment belongs to none. Pure.
 * @example withTaxationsAndRates([{ Code: 'AT', TaxationCodes: ['AT-VAT'] }], { TaxRates: [{ Code: 'AT-S', TaxationCode: 'AT-VAT' }] })
 */
export function withTaxationsAndRates(
  records: readonly EntityRecord[],
  response: Readonly<Record<string, unknown>>,
): EntityRecord[] {
  const lists = Object.entries(response).filter(
    (entry): entry is [string, unknown[]] =>
      entry[0] !== TAX_ENVIRONMENTS_KEY && Array.isArray(entry[1]),
  );
  if (lists.length === 0) return [...records];
  return records.map((environment) => {
    const codes = codesOf(environment);
    const folded: Record<string, unknown> = { ...environment };
    for (const [key, items] of lists) {
      if (!Object.hasOwn(environment, key))
        folded[key] = items.filter((item) => names(item, codes));
    }
    return folded;
  });
}

/**
 * Tax environments: one unpaginated list, diffed against the stored snapshot, each environment
 * with the taxations and tax rates it uses (see {@link withTaxationsAndRates}).
 */
export const taxEnvironmentSpec: SnapshotPollSpec = {
  entityType: 'taxEnvironment',
  strategy: 'snapshot',
  operation: 'taxEnvironments/getAll',
  itemsKey: TAX_ENVIRONMENTS_KEY,
  volatileFields: [],
  defaultIntervalMs: 60 * MINUTE_MS,
  request: () => ({}),
  withResponse: withTaxationsAndRates,
};
