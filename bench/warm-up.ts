import { systemClock } from '../shared/clock.ts';
import type { RunningSimulator } from '../shared/simulator/simulator.ts';

type SimulatorModel = RunningSimulator['controls']['model'];

/** The ids of the simulator's active customers, in the model's order. */
export function activeCustomerIds(model: SimulatorModel): string[] {
  return [...model.customers.all()]
    .filter((entry) => entry.record.IsActive)
    .map((entry) => entry.record.Id);
}

/**
 * Changes customer `id` every 2 s until `arrived()` says a change of it has travelled end to end
 * (one made during the silent, baseline first sync emits nothing); throws after `limitMs`.
 */
export async function warmUp(
  model: SimulatorModel,
  id: string,
  arrived: () => boolean,
  limitMs: number,
): Promise<void> {
  const deadline = performance.now() + limitMs;
  for (let n = 0; !arrived() && performance.now() < deadline; n++) {
    if (n % 40 === 0) model.update(model.customers, 'customer', id, { Notes: `warm-up ${n}` });
    await systemClock.sleep(50);
  }
  if (!arrived()) throw new Error('warm-up change never arrived');
}
