import { ConnectorError } from '../../connector/errors.ts';
import { productPricesFromPricing } from '../../connector/operations/products-get-pricing.ts';
import { dayStartUtc } from '../../time-zone.ts';
import { listingJudging, listingPartCheck, listingPassDone } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { pollPace } from '../deadline-pace.ts';
import { observe } from '../page-changes.ts';
import {
  advanceCounters,
  callOptions,
  emitsCreated,
  PartialPollFailure,
  type PollDeps,
  type StateHandle,
  type StrategyRun,
  type StreamDefinition,
  syncCompleted,
} from '../poll-context.ts';
import { nextSlotTime, pollSlotsOf } from '../stream-phase.ts';
import { pastDeadline } from './windowed.ts';

/** products/getPricing spans at most 100 day units (connector-api.md, operation 14, rule 2). */
export const PRICE_HORIZON_MAX_DAYS = 100;
/** Days priced ahead when not configured. */
export const PRICE_HORIZON_DEFAULT_DAYS = 30;

/**
 * The first and last Day-unit starts of a horizon beginning today: local midnights of the
 * enterprise's time zone, converted to UTC (operation 14, rule 1).
 * @example priceHorizon(Date.parse('2026-11-21T10:00:00Z'), 2, 'Europe/Prague') // { first: '2026-11-20T23:00:00.000Z', last: '2026-11-21T23:00:00.000Z' }
 */
export function priceHorizon(
  nowMs: number,
  days: number,
  timeZone: string,
): { first: string; last: string } {
  const span = Math.max(1, Math.min(PRICE_HORIZON_MAX_DAYS, days));
  return {
    first: new Date(dayStartUtc(nowMs, timeZone)).toISOString(),
    last: new Date(dayStartUtc(nowMs, timeZone, span - 1)).toISOString(),
  };
}

/**
 * The products of a round still to price: those after `position` (the last one priced, in the
 * configured order), or all of them when there is none or it is no longer configured. Pure.
 */
function productsAfter<T extends { productId: string }>(
  products: readonly T[],
  position: string | null | undefined,
): readonly T[] {
  const at = position == null ? -1 : products.findIndex((p) => p.productId === position);
  return products.slice(at + 1);
}

/**
 * Product prices: each configured product is priced over the horizon; a changed price emits
 * `productPrice.updated` for that product and time unit. Units that fall behind the horizon
 * are dropped from the state silently (a past day's price is no news). A product whose request
 * could not be in hand before the invocation's deadline (see deadlinePace) is not asked for:
 * the run returns false with the last product priced kept (`pricePosition`), and the next poll
 * goes on after it; true once the round is done. A stream polled in slots (several products at
 * 30 s or more, see pollSlotsOf) prices one product a slot, so that its requests do not come at
 * one instant: the product after `pricePosition` in the slot due, and the next ones only while
 * their slots are due by the job's horizon (`PollDeps.dueBy`); it returns when its next slot is
 * (`{ dueAt }`), and a product refused there fails the poll only in part.
 */
export async function runProductPrices(
  definition: StreamDefinition,
  deps: PollDeps,
  state: StateHandle,
): Promise<StrategyRun> {
  const days = definition.priceHorizonDays ?? PRICE_HORIZON_DEFAULT_DAYS;
  const slots = pollSlotsOf(definition);
  /** The slot this run prices in: the one due at its start, then each next one due by `dueBy`. */
  let slotAt = deps.clock.now();
  const dueBy = deps.dueBy ?? slotAt;
  const nextSlot = () =>
    nextSlotTime(slotAt, definition.intervalMs, definition.phaseMs ?? 0, slots);
  const emitCreated = emitsCreated(definition, state.current);
  const backfill = listingJudging(state.current);
  const pace = pollPace(deps);
  let read = 0;
  let published = 0;
  // Over every product, those priced by an earlier run of the round too: a unit of theirs
  // still in the horizon is not dropped.
  let earliestFirst: number | undefined;
  for (const { timeZone } of definition.products ?? []) {
    const first = Date.parse(priceHorizon(deps.clock.now(), days, timeZone).first);
    if (earliestFirst === undefined || first < earliestFirst) earliestFirst = first;
  }
  /**
   * The first product the connector refused, or whose pricing broke the contract: the poll
   * fails with it once the others are priced (a {@link PartialPollFailure} when any were).
   */
  let refused: ConnectorError | undefined;
  /** The last product this run priced (or asked for, refused). */
  let lastAsked: string | undefined;
  for (const { productId, timeZone } of productsAfter(
    definition.products ?? [],
    state.current.pricePosition,
  )) {
    // Polled in slots: one product a slot, those after the first only when their slot is due by
    // the job's horizon (an AWS job's; without one, now: the local loop prices the one due).
    const slotDue = lastAsked === undefined || slots === 1 || nextSlot() <= dueBy;
    if (!slotDue || pastDeadline(deps) || !pace.nextFits()) {
      // The poll's save follows at once and writes it, with what this run read.
      state.stage({
        ...advanceCounters(state.current, { records: read, events: published }),
        ...(lastAsked === undefined ? {} : { pricePosition: lastAsked }),
      });
      if (!slotDue && refused) throw new PartialPollFailure(refused);
      return slotDue ? false : { dueAt: nextSlot() };
    }
    if (lastAsked !== undefined && slots > 1) slotAt = nextSlot();
    const horizon = priceHorizon(deps.clock.now(), days, timeZone);
    pace.asking();
    const sent = await deps.client
      .send(
        'products/getPricing',
        {
          ProductId: productId,
          FirstTimeUnitStartUtc: horizon.first,
          LastTimeUnitStartUtc: horizon.last,
        },
        callOptions(deps, definition, 'live'),
      )
      .catch((error: unknown) => {
        // A product the connector refuses (one deleted since it was configured, say), or whose
        // pricing breaks the contract (one price of the wrong type: its time units are parallel
        // arrays, so none of its prices can be trusted), must not keep the products after it
        // from their prices at every poll (design.md, Bad input). Its stored prices stay as they
        // were: a price is never taken for deleted.
        if (
          !(error instanceof ConnectorError) ||
          (error.status !== 400 && error.category !== 'response')
        )
          throw error;
        refused ??= error;
        return undefined;
      });
    lastAsked = productId;
    if (sent === undefined) continue;
    const prices = productPricesFromPricing(sent.response);
    read += prices.length;
    const changes = await commitObservations(
      definition,
      deps,
      observe('productPrice', prices),
      emitCreated,
      { backfill, beforePublish: listingPartCheck(deps.store, state) },
    );
    published += changes.published;
    pace.arrived(sent.sentAt);
  }
  const expired: string[] = [];
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId)) {
    for (const snapshot of snapshots) {
      const unitStart = Date.parse(String(snapshot.record.TimeUnitStartUtc));
      if (earliestFirst !== undefined && unitStart < earliestFirst) {
        expired.push(snapshot.entityId);
      }
    }
  }
  if (expired.length > 0) await deps.store.deleteSnapshots(definition.streamId, expired);
  // Nothing priced: the refusal is the poll's failure, with its backoff (in slots, the others'
  // products were priced in slots of their own).
  if (refused && read === 0 && slots === 1) throw refused;
  // The poll's success save follows at once and writes it (one write per poll).
  const now = deps.clock.now();
  state.stage({
    ...(state.current.pricePosition == null ? {} : { pricePosition: null }),
    watermark: new Date(now).toISOString(),
    ...syncCompleted(state.current, { records: read, events: published }, now),
    ...listingPassDone(state.current, { records: read, events: published }, now),
  });
  if (refused) throw new PartialPollFailure(refused);
  return slots === 1 ? true : { dueAt: nextSlot() };
}
