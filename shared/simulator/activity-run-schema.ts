import { z } from 'zod';
import {
  SIM_MAX_ACTIVITY_PER_SECOND,
  SIM_MAX_ACTIVITY_RUN_MS,
  SIM_MAX_ACTIVITY_RUN_STEPS,
} from './activity.ts';

/**
 * A run of activity within its bounds, the rate of a timed run defaulting to `defaultPerSecond`:
 * each run is made at once on the simulator's one thread, so one request cannot keep it busy
 * for long (or grow its journal without end).
 */
export function activityRunSchema(defaultPerSecond: number) {
  const MAX_STEPS = SIM_MAX_ACTIVITY_RUN_STEPS;
  return z.union([
    z.strictObject({ steps: z.number().int().min(0).max(MAX_STEPS) }),
    z
      .strictObject({
        durationMs: z.number().int().min(0).max(SIM_MAX_ACTIVITY_RUN_MS),
        perSecond: z.number().positive().max(SIM_MAX_ACTIVITY_PER_SECOND).optional(),
      })
      .refine((run) => ((run.perSecond ?? defaultPerSecond) * run.durationMs) / 1000 <= MAX_STEPS, {
        path: ['durationMs'],
        error: `makes more than ${MAX_STEPS} mutations at its perSecond; run it in parts`,
      }),
  ]);
}
