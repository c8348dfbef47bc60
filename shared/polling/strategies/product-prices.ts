import type { EntityRecord } from '../../changes/entity-types.ts';
import type { OperationResponse } from '../../connector/operations.ts';
import { commitObservations } from '../commit-changes.ts';
import { observe } from '../page-changes.ts';
import type { PollDeps, StateHandle, StreamDefinition } from '../poll-context.ts';

/** products/getPricing spans at most 100 day units (connector-api.md, operation 14, rule 2). */
export const PRICE_HORIZON_MAX_DAYS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The first and last day-unit starts of a horizon beginning today (UTC midnight boundaries). */
export function priceHorizon(nowMs: number, days: number): { first: string; last: string } {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const span = Math.max(1, Math.min(PRICE_HORIZON_MAX_DAYS, days));
  return {
    first: new Date(today).toISOString(),
    last: new Date(today + (span - 1) * DAY_MS).toISOString(),
  };
}

/**
 * Splits a pricing response into one derived `productPrice` record per time unit:
 * `{ ProductId, TimeUnitStartUtc, BaseAmountPrice, AgeCategoryPrices: [{ AgeCategoryId, Price }] }`.
 */
export function priceRecords(response: OperationResponse<'products/getPricing'>): EntityRecord[] {
  return response.TimeUnitStartsUtc.map((start, index) => ({
    ProductId: response.ProductId,
    TimeUnitStartUtc: start,
    BaseAmountPrice: response.BaseAmountPrices[index] ?? null,
    AgeCategoryPrices: (response.AgeCategoryPrices ?? []).map((category) => ({
      AgeCategoryId: category.AgeCategoryId,
      Price: category.Prices[index] ?? null,
    })),
  }));
}

/**
 * Product prices: each configured product is priced over the horizon; a changed price emits
 * `productPrice.updated` for that product and time unit. Units that fall behind the horizon
 * are dropped from the state silently (a past day's price is no news).
 */
export async function runProductPrices(
  definition: StreamDefinition,
  deps: PollDeps,
  state: StateHandle,
): Promise<number> {
  const horizon = priceHorizon(deps.clock.now(), definition.priceHorizonDays ?? 30);
  const emitCreated = state.current.initialSyncDone || definition.initialSync === 'emit';
  let events = 0;
  for (const productId of definition.products ?? []) {
    const response = await deps.client.call('products/getPricing', {
      ProductId: productId,
      FirstTimeUnitStartUtc: horizon.first,
      LastTimeUnitStartUtc: horizon.last,
    });
    const changes = await commitObservations(
      definition,
      deps,
      observe('productPrice', priceRecords(response)),
      emitCreated,
    );
    events += changes.events.length;
  }
  const expired: string[] = [];
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId)) {
    for (const snapshot of snapshots) {
      if (String(snapshot.record.TimeUnitStartUtc) < horizon.first) expired.push(snapshot.entityId);
    }
  }
  if (expired.length > 0) await deps.store.deleteSnapshots(definition.streamId, expired);
  await state.save({ watermark: new Date(deps.clock.now()).toISOString(), initialSyncDone: true });
  return events;
}
