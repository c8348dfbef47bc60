import { createInterface } from 'node:readline';
import { z } from 'zod';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { isMain } from '../figures.ts';

/** What the burst simulator announces on its first stdout line. */
export const BurstSimulatorReadySchema = z.object({
  connectorEnv: z.record(z.string(), z.string()),
});

/** A request on stdin: update this many active customers at once. */
export const BurstRequestSchema = z.object({ update: z.number().int().positive() });

/** The answer on stdout: the ids of the customers updated. */
export const BurstAnswerSchema = z.object({ updated: z.array(z.string()) });

/**
 * The burst benchmarks' connector: the simulator (medium, seed 5, no request limit) in a
 * process of its own, as a real connector is remote: serving the bridge's pages does not hold
 * up the receiver's event loop. Announces the connector variables, then for each line
 * `{"update": N}` on stdin updates N active customers' Notes in one go and answers with their
 * ids. Stops when stdin ends.
 */
async function main(): Promise<void> {
  const sim = await startSimulator({ seed: 5, size: 'medium', rateLimit: false });
  const model = sim.controls.model;
  process.stdout.write(`${JSON.stringify({ connectorEnv: connectorEnvOf(sim) })}\n`);
  // Each request's Notes differ from the last one's, so a burst repeated is a change again.
  let requests = 0;
  for await (const line of createInterface({ input: process.stdin })) {
    const { update } = BurstRequestSchema.parse(JSON.parse(line));
    requests++;
    const ids = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, update)
      .map((entry) => entry.record.Id);
    for (const id of ids)
      model.update(model.customers, 'customer', id, { Notes: `bench ${id} ${requests}` });
    process.stdout.write(`${JSON.stringify({ updated: ids })}\n`);
  }
  await sim.close();
}

if (isMain(import.meta.url)) await main();
