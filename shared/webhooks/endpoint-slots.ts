import { z } from 'zod';
import type { Clock } from '../clock.ts';

/**
 * How long a process holds an endpoint's slots unless it renews them: a process that dies (or a
 * Lambda container that is frozen or times out) gives them back by this time at the latest.
 */
export const SLOT_HOLD_MS = 30_000;

/**
 * One process's share of an endpoint's slots: how many, until when (epoch ms), and how many it
 * asked for (a process granted fewer, even none, stays listed with what it wants, so that the
 * others' next grants leave it its fair part).
 */
export const SlotHoldSchema = z.object({
  slots: z.number().int().nonnegative(),
  until: z.number(),
  wants: z.number().int().nonnegative().optional(),
});

/** A share of an endpoint's slots (see {@link SlotHoldSchema}). */
export type SlotHold = z.infer<typeof SlotHoldSchema>;

/** Every process's share of one endpoint's slots, by holder id. */
export const SlotHoldersSchema = z.record(z.string(), SlotHoldSchema);

/** Shares of one endpoint's slots (see {@link SlotHoldersSchema}). */
export type SlotHolders = z.infer<typeof SlotHoldersSchema>;

/**
 * The deliveries in flight to one endpoint, counted across every process that delivers to it
 * (in AWS, the dispatcher's containers): each process holds a share of the endpoint's maximum
 * and starts no more requests than its share. Port of {@link EndpointScheduler}; a process
 * without one (the local runtime: one process) counts only its own.
 */
export interface EndpointSlots {
  /**
   * Sets this process's share of the endpoint's `max` slots to `want`, or to as many as the
   * other holders leave free and fairness allows, never fewer than the `inUse` ones it has
   * requests in flight on (0 gives them all back). Resolves with the share granted; throws
   * when the store failed or stayed contended.
   */
  hold(endpoint: string, want: number, max: number, inUse?: number): Promise<SlotHold>;
}

/**
 * The holders after `holder` asks for `want` of `max` slots at `now`, and its grant: at most
 * what the others' unexpired shares leave free, and at most a fair part of `max` among the
 * processes that want slots (so a process that took all of them while alone gives some back
 * when it next asks, and none waits for good), but never fewer than the `inUse` it has
 * requests in flight on (what others may take must be free). A process that wants slots stays listed with
 * its want even when granted none; expired shares are dropped, and a process that wants none
 * is removed. `changed` is false when its entry would stay as it is for more than half its
 * hold still (nothing need be written). Pure.
 * @example shareSlots({ a: { slots: 10, until: 9e15 } }, 'b', 16, 16, 0).hold.slots === 6
 */
export function shareSlots(
  holders: SlotHolders,
  holder: string,
  want: number,
  max: number,
  now: number,
  holdMs: number = SLOT_HOLD_MS,
  inUse = 0,
): { holders: SlotHolders; hold: SlotHold; changed: boolean } {
  const next: SlotHolders = {};
  let taken = 0;
  let wanting = want > 0 ? 1 : 0;
  for (const [id, share] of Object.entries(holders)) {
    if (id === holder || share.until <= now) continue;
    next[id] = share;
    taken += share.slots;
    if ((share.wants ?? share.slots) > 0) wanting++;
  }
  const fair = Math.ceil(max / Math.max(1, wanting));
  const free = max - taken;
  const slots = Math.max(0, Math.min(inUse, free), Math.min(want, free, fair));
  const mine = holders[holder];
  const unchanged =
    mine === undefined
      ? want === 0
      : mine.slots === slots &&
        (mine.wants ?? mine.slots) === want &&
        mine.until - now > holdMs / 2;
  if (unchanged) return { holders, hold: mine ?? { slots, until: now }, changed: false };
  const hold: SlotHold = { slots, until: now + holdMs, wants: want };
  if (want > 0) next[holder] = hold;
  return { holders: next, hold, changed: true };
}

/**
 * {@link EndpointSlots} kept in this process's memory, shared by every scheduler given the same
 * instance (each with its own holder id): the contract tests' reference and a test double
 * for processes that share a table.
 */
export class MemoryEndpointSlots {
  private readonly endpoints = new Map<string, SlotHolders>();

  constructor(private readonly clock: Clock) {}

  /** The port as seen by one holder. */
  holder(holder: string): EndpointSlots {
    return {
      hold: async (endpoint, want, max, inUse) => {
        const shared = shareSlots(
          this.endpoints.get(endpoint) ?? {},
          holder,
          want,
          max,
          this.clock.now(),
          SLOT_HOLD_MS,
          inUse,
        );
        this.endpoints.set(endpoint, shared.holders);
        return shared.hold;
      },
    };
  }
}
