import { z } from 'zod';
import type { Clock } from '../clock.ts';

/**
 * How long a process holds an endpoint's slots unless it renews them: a process that dies (or a
 * Lambda container that is frozen or times out) gives them back by this time at the latest.
 */
export const SLOT_HOLD_MS = 30_000;

/** One process's share of an endpoint's slots: how many, until when (epoch ms). */
export const SlotHoldSchema = z.object({
  slots: z.number().int().nonnegative(),
  until: z.number(),
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
   * other holders leave free (0 gives them all back). Resolves with the share granted; throws
   * when the store failed or stayed contended.
   */
  hold(endpoint: string, want: number, max: number): Promise<SlotHold>;
}

/**
 * The holders after `holder` asks for `want` of `max` slots at `now`, and its grant: at most
 * what the others' unexpired shares leave free; expired shares are dropped, and a holder
 * granted none is removed. `changed` is false when the holder's share would stay as it is for
 * more than half its hold still (nothing need be written). Pure.
 * @example shareSlots({ a: { slots: 10, until: 9e15 } }, 'b', 16, 16, 0).hold.slots === 6
 */
export function shareSlots(
  holders: SlotHolders,
  holder: string,
  want: number,
  max: number,
  now: number,
  holdMs: number = SLOT_HOLD_MS,
): { holders: SlotHolders; hold: SlotHold; changed: boolean } {
  const next: SlotHolders = {};
  let taken = 0;
  for (const [id, share] of Object.entries(holders)) {
    if (id === holder || share.until <= now) continue;
    next[id] = share;
    taken += share.slots;
  }
  const slots = Math.max(0, Math.min(want, max - taken));
  const mine = holders[holder];
  if (mine === undefined ? slots === 0 : mine.slots === slots && mine.until - now > holdMs / 2)
    return { holders, hold: mine ?? { slots, until: now }, changed: false };
  const hold = { slots, until: now + holdMs };
  if (slots > 0) next[holder] = hold;
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
      hold: async (endpoint, want, max) => {
        const shared = shareSlots(
          this.endpoints.get(endpoint) ?? {},
          holder,
          want,
          max,
          this.clock.now(),
        );
        this.endpoints.set(endpoint, shared.holders);
        return shared.hold;
      },
    };
  }
}
