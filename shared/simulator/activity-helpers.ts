import type { EntitySet, Entry } from './entity-set.ts';
import type { SimModel } from './model.ts';

/** One kind of mutation; false when it found nothing to act on. */
export type Action = (model: SimModel) => boolean;

/** An action and its weight: how often it is drawn, against the sum of every weight. */
export type WeightedAction = [number, Action];

/** A random live entry of a set, or undefined when a few draws found none. */
export function sample<T>(
  model: SimModel,
  set: EntitySet<T>,
  keep: (entry: Entry<T>) => boolean = () => true,
): Entry<T> | undefined {
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const entry = set.at(Math.floor(model.random.source() * set.storedCount));
    if (entry && keep(entry)) return entry;
  }
  return undefined;
}

/** Whether an entry is live (not deleted). */
export const live = <T>(entry: Entry<T>) => entry.deletedMs === null;

/** A loyalty program of `chainId`: sampled as any when the world has one chain. */
export function programOfChain(model: SimModel, chainId: string) {
  if (model.world.chainIds.length === 1) return sample(model, model.loyaltyPrograms);
  const programs = [...model.loyaltyPrograms.newestFirstWithin({ chainIds: [chainId] })];
  return programs.length > 0 ? model.random.pick(programs) : undefined;
}

/** Meta of a new record: an enterprise's (in its chain), or chain-level in `chainId`. */
export function meta(model: SimModel, enterpriseId: string | null, chainId?: string) {
  const now = model.clock.now();
  const chain =
    enterpriseId === null ? (chainId ?? model.world.chainId) : model.chainOf(enterpriseId);
  return { enterpriseId, chainId: chain, createdMs: now, updatedMs: now };
}

/** Soft-deletes a random live entry of `set` that `keep` accepts, with `patch`; false when none was found. */
export function softDelete<T extends object>(
  model: SimModel,
  set: EntitySet<T>,
  type: Parameters<SimModel['softDelete']>[1],
  patch: Partial<T>,
  keep: (entry: Entry<T>) => boolean = () => true,
): boolean {
  const entry = sample(model, set, (e) => live(e) && keep(e));
  return entry ? model.softDelete(set, type, set.keyOf(entry.record), patch) : false;
}

/** Deletes a random entry of `set` for good; false when none was found. */
export function hardDelete<T>(
  model: SimModel,
  set: EntitySet<T>,
  type: Parameters<SimModel['hardDelete']>[1],
): boolean {
  const entry = sample(model, set);
  return entry ? model.hardDelete(set, type, set.keyOf(entry.record)) : false;
}
