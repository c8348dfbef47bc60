import { z } from 'zod';
import { systemClock } from '../shared/clock.ts';
import { connectorEnvOf } from '../shared/simulator/connector-env.ts';
import { startSimulator } from '../shared/simulator/simulator.ts';
import { startBridgeChild } from './bridge-process.ts';
import { formatNumber, isMain, percentile, quietAwsSdkNotice, recordFigure } from './figures.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';
import { activeCustomerIds, warmUp } from './warm-up.ts';

/**
 * Changes made: at one every 37 ms (~27 a second, over three times what the slow endpoint
 * takes) for 37 s, more one-second polls, each a batch carrying deliveries to both endpoints,
 * than the 32 batches the local dispatch runs at once.
 */
const MUTATIONS = 1_000;
const MUTATION_SPACING_MS = 37;
/** How long the slow endpoint takes to answer each request (issue 12's must-show case). */
const SLOW_ANSWER_MS = 2_000;
/** Requests the slow endpoint takes at once (the default concurrency). */
const SLOW_CONCURRENCY = 16;
const WAIT_LIMIT_MS = 60_000;
/** How long the slow endpoint's deliveries are counted after the healthy one has every change. */
const SLOW_TAIL_MS = 10_000;
const SubscriptionSchema = z.object({ secret: z.string() });

/** When each subject's first `customer.updated` arrived verified at `receiver`. */
function arrivals(receiver: BenchReceiver): Map<string, number> {
  const arrived = new Map<string, number>();
  receiver.onVerified = (webhook) => {
    if (webhook.type === 'customer.updated' && !arrived.has(webhook.subject))
      arrived.set(webhook.subject, webhook.at);
  };
  return arrived;
}

function sleep(ms: number): Promise<void> {
  return systemClock.sleep(ms);
}

/**
 * An endpoint answering in 2 s beside a healthy one, in the user's path: `change-bridge start`
 * as a child process polling every second, two subscriptions to `customer.updated`, 1,000
 * customers changed one every 37 ms. Prints the healthy endpoint's mutation → verified webhook
 * latency (it must not wait for the slow one) and the slow endpoint's deliveries per second
 * while its backlog lasts (from its first delivery to 10 s after the healthy one had every
 * change) against what it can take (16 requests at once, 2 s each: 8/s).
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log(`slow endpoint (${SLOW_ANSWER_MS} ms an answer) beside a healthy one`);
  const sim = await startSimulator({ seed: 3, size: 'medium', clock: systemClock });
  const healthy = await startBenchReceiver();
  const slow = await startBenchReceiver(true, SLOW_ANSWER_MS);
  const env = { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer' };
  const bridge = await startBridgeChild({ env, pollInterval: '1s' });
  const toHealthy = arrivals(healthy);
  const toSlow = arrivals(slow);
  try {
    for (const receiver of [healthy, slow]) {
      const { secret } = SubscriptionSchema.parse(
        await bridge.call('POST', '/subscriptions', {
          url: receiver.url,
          events: ['customer.updated'],
        }),
      );
      receiver.setSecret(secret);
    }
    const model = sim.controls.model;
    const ids = activeCustomerIds(model);
    // Warm-up: one change end to end to both endpoints.
    const warmed = () => toHealthy.has(ids[0]!) && toSlow.has(ids[0]!);
    await warmUp(model, ids[0]!, warmed, WAIT_LIMIT_MS);

    const measured = ids.slice(1, MUTATIONS + 1);
    const mutatedAt = new Map<string, number>();
    for (const id of measured) {
      model.update(model.customers, 'customer', id, { Notes: `bench slow endpoint ${id}` });
      mutatedAt.set(id, performance.now());
      await sleep(MUTATION_SPACING_MS);
    }
    const deadline = performance.now() + WAIT_LIMIT_MS;
    while (measured.some((id) => !toHealthy.has(id)) && performance.now() < deadline)
      await sleep(200);
    await sleep(SLOW_TAIL_MS);
    const windowEnd = performance.now();

    const latencies = measured
      .filter((id) => toHealthy.has(id))
      .map((id) => toHealthy.get(id)! - mutatedAt.get(id)!)
      .sort((a, b) => a - b);
    const lostHealthy = measured.length - latencies.length;
    const p99 = percentile(latencies, 99);
    const slowTimes = measured
      .filter((id) => toSlow.has(id))
      .map((id) => toSlow.get(id)!)
      .sort((a, b) => a - b);
    const slowSpanS = (windowEnd - (slowTimes[0] ?? windowEnd)) / 1000;
    const slowRate = slowTimes.length / slowSpanS;
    const slowCapacity = (SLOW_CONCURRENCY * 1000) / SLOW_ANSWER_MS;
    console.log(
      `  healthy endpoint: ${latencies.length} of ${measured.length} verified; p50 ${formatNumber(percentile(latencies, 50))} ms, ` +
        `p99 ${formatNumber(p99)} ms, max ${formatNumber(latencies.at(-1) ?? Number.NaN)} ms`,
    );
    console.log(
      `  slow endpoint: ${slowTimes.length} of ${measured.length} verified in the ${formatNumber(slowSpanS, 1)} s from its first: ` +
        `${formatNumber(slowRate, 1)}/s against the ${formatNumber(slowCapacity)}/s it can take`,
    );
    recordFigure({
      figure: `Mutation -> verified webhook beside an endpoint answering in ${SLOW_ANSWER_MS / 1000} s (healthy endpoint)`,
      measured: `p50 ${formatNumber(percentile(latencies, 50))} ms, p99 ${formatNumber(p99)} ms${lostHealthy ? ` (${lostHealthy} never arrived)` : ''}`,
      target: 'p99 <= 2 s',
      met: p99 <= 2000 && lostHealthy === 0,
    });
    recordFigure({
      figure: `Deliveries to the endpoint answering in ${SLOW_ANSWER_MS / 1000} s (16 at once)`,
      measured: `${formatNumber(slowRate, 1)}/s of ${formatNumber(slowCapacity)}/s while its backlog lasts`,
      target: `>= 0.8 of ${formatNumber(slowCapacity)}/s`,
      met: slowRate >= 0.8 * slowCapacity,
    });
  } finally {
    await bridge.stop();
    await healthy.close();
    await slow.close();
    await sim.close();
  }
}

if (isMain(import.meta.url)) await run();
