import type { EventOf } from './catalogue.ts';
import { isEventOfType } from './guards.ts';

/** A `loyaltyProgram.updated` event (only a write through the bridge produces it). */
export type LoyaltyProgramUpdatedEvent = EventOf<'loyaltyProgram.updated'>;

/** A `routingRule.updated` event (only a write through the bridge produces it). */
export type RoutingRuleUpdatedEvent = EventOf<'routingRule.updated'>;

/** A `voucher.created` event (only a write through the bridge produces it). */
export type VoucherCreatedEvent = EventOf<'voucher.created'>;

/** A `restriction.cleared` event (only a write through the bridge produces it). */
export type RestrictionClearedEvent = EventOf<'restriction.cleared'>;

/** Any event only a write through the bridge produces. */
export type WriteEvent =
  | LoyaltyProgramUpdatedEvent
  | RoutingRuleUpdatedEvent
  | VoucherCreatedEvent
  | RestrictionClearedEvent;

/** True when `value` is a valid `loyaltyProgram.updated` event. */
export const isLoyaltyProgramUpdatedEvent = (value: unknown): value is LoyaltyProgramUpdatedEvent =>
  isEventOfType('loyaltyProgram.updated', value);

/** True when `value` is a valid `routingRule.updated` event. */
export const isRoutingRuleUpdatedEvent = (value: unknown): value is RoutingRuleUpdatedEvent =>
  isEventOfType('routingRule.updated', value);

/** True when `value` is a valid `voucher.created` event. */
export const isVoucherCreatedEvent = (value: unknown): value is VoucherCreatedEvent =>
  isEventOfType('voucher.created', value);

/** True when `value` is a valid `restriction.cleared` event. */
export const isRestrictionClearedEvent = (value: unknown): value is RestrictionClearedEvent =>
  isEventOfType('restriction.cleared', value);
