import { z } from 'zod';
import { DurationSchema } from '../duration.ts';
import { wholeNumberVariable } from '../optional-variable.ts';
import type { DispatcherConfig } from './dispatcher-deps.ts';
import { DELIVERY_TIMEOUT_MS } from './http-sender.ts';
import { DISABLE_AFTER_FAILING_MS, FAILING_AFTER_FAILURES } from './retry-policy.ts';

/**
 * The dispatcher's settings a deployment may change, as environment variables (README,
 * Configuration): the same names for `change-bridge start` and the dispatcher Lambda.
 */
export const DispatcherEnvSchema = z.object({
  /** Webhook request timeout, ms. */
  DELIVERY_TIMEOUT_MS: wholeNumberVariable(z.number().positive().max(60_000)).default(
    DELIVERY_TIMEOUT_MS,
  ),
  /** Consecutive failed attempts to an endpoint before `delivery.failing` is published. */
  WEBHOOK_FAILING_AFTER: wholeNumberVariable(z.number().min(1).max(1000)).default(
    FAILING_AFTER_FAILURES,
  ),
  /** How long an endpoint may fail without a success before its subscription is disabled. */
  WEBHOOK_DISABLE_AFTER: DurationSchema.pipe(
    z.number().min(1000, { error: 'must be at least 1s' }),
  ).default(DISABLE_AFTER_FAILING_MS),
});

/** What {@link dispatcherSettings} makes of the variables. */
export interface DispatcherSettings {
  /** The sender's request timeout, ms. */
  deliveryTimeoutMs: number;
  /** The endpoint health thresholds of {@link DispatcherConfig}. */
  config: Pick<DispatcherConfig, 'failingAfterFailures' | 'disableAfterMs'>;
}

/**
 * The dispatcher's settings from parsed {@link DispatcherEnvSchema} variables. Pure.
 * @example dispatcherSettings(DispatcherEnvSchema.parse({ WEBHOOK_DISABLE_AFTER: '2d' })).config.disableAfterMs === 172_800_000
 */
export function dispatcherSettings(env: z.output<typeof DispatcherEnvSchema>): DispatcherSettings {
  return {
    deliveryTimeoutMs: env.DELIVERY_TIMEOUT_MS,
    config: {
      failingAfterFailures: env.WEBHOOK_FAILING_AFTER,
      disableAfterMs: env.WEBHOOK_DISABLE_AFTER,
    },
  };
}
