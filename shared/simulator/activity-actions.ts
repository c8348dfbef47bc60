import { ACCOUNTING_ACTIONS } from './accounting-actions.ts';
import type { WeightedAction } from './activity-helpers.ts';
import { CUSTOMER_ACTIONS, createCustomer } from './customer-actions.ts';
import { LOYALTY_AND_BOOKING_ACTIONS } from './loyalty-and-booking-actions.ts';
import type { SimModel } from './model.ts';
import { PROPERTY_ACTIONS } from './property-actions.ts';

/** Every kind of mutation with its weight, in the order draws land on them (see pickAction). */
const ACTIONS: readonly WeightedAction[] = [
  ...CUSTOMER_ACTIONS,
  ...ACCOUNTING_ACTIONS,
  ...LOYALTY_AND_BOOKING_ACTIONS,
  ...PROPERTY_ACTIONS,
];

/** Sum of the action weights. */
export const TOTAL_WEIGHT = ACTIONS.reduce((sum, [weight]) => sum + weight, 0);

/** The action a draw in [0, TOTAL_WEIGHT) lands on. */
export function pickAction(draw: number): (model: SimModel) => boolean {
  let remaining = draw;
  for (const [weight, action] of ACTIONS) {
    remaining -= weight;
    if (remaining < 0) return action;
  }
  return createCustomer;
}
