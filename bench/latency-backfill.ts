import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { systemClock } from '../shared/clock.ts';
import { connectorEnvOf } from '../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../shared/simulator/simulator.ts';
import { startBridgeChild } from './bridge-process.ts';
import { formatNumber, isMain, percentile, quietAwsSdkNotice, recordFigure } from './figures.ts';
import { startBenchReceiver } from './receiver.ts';
import { activeCustomerIds } from './warm-up.ts';

/** Customers of the simulator, all of them backfilled. */
const CUSTOMERS = 100_000;
/** Changes measured, each to a different customer picked at random. */
const MUTATIONS = 200;
/** Changes are spread over the poll cycle: one every 37 ms (not a divisor of 1 s). */
const MUTATION_SPACING_MS = 37;
/** How far into the backfill the first change is made: its reading has queued thousands. */
const FIRST_CHANGE_AFTER_MS = 5_000;
const WAIT_LIMIT_MS = 180_000;
const StreamsSchema = z.object({
  streams: z.array(z.object({ initialSyncDone: z.boolean() })),
});
const SubscriptionSchema = z.object({ secret: z.string() });

function sleep(ms: number): Promise<void> {
  return systemClock.sleep(ms);
}

/** The changes of one round: when each was made, and when its webhook was verified. */
interface Round {
  changedAt: Map<string, number>;
  arrived: Map<string, number>;
}

/** Changes MUTATIONS customers picked at random (not changed before), one every 37 ms. */
async function changeCustomers(
  model: RunningSimulator['controls']['model'],
  ids: readonly string[],
  round: Round,
  changedBefore: ReadonlySet<string>,
): Promise<void> {
  while (round.changedAt.size < MUTATIONS) {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    if (round.changedAt.has(id) || changedBefore.has(id)) continue;
    model.update(model.customers, 'customer', id, { Notes: `bench backfill latency ${id}` });
    round.changedAt.set(id, performance.now());
    await sleep(MUTATION_SPACING_MS);
  }
  const deadline = performance.now() + WAIT_LIMIT_MS;
  while (round.arrived.size < round.changedAt.size && performance.now() < deadline)
    await sleep(200);
}

/** Milliseconds as the round's lines print them: `1,234 ms`. */
const ms = (value: number) => `${formatNumber(Math.round(value))} ms`;

/**
 * The `count` slowest changes of a round: each one's latency, when it was made (after the
 * round's first change) and when its `created` was verified against it, which tells a change
 * that waited for its `created` from one that waited elsewhere. Pure.
 */
function describeSlowest(round: Round, createdAt: ReadonlyMap<string, number>, count: number) {
  const first = Math.min(...round.changedAt.values());
  return [...round.arrived]
    .map(([id, at]) => ({ id, changed: round.changedAt.get(id)!, at }))
    .sort((a, b) => b.at - b.changed - (a.at - a.changed))
    .slice(0, count)
    .map(({ id, changed, at }) => {
      const created = createdAt.get(id);
      const createdText =
        created === undefined
          ? 'no created seen'
          : created < changed
            ? 'its created verified before the change'
            : `its created verified ${ms(created - changed)} after the change`;
      return `${ms(at - changed)} (made ${ms(changed - first)} into the round; ${createdText})`;
    })
    .join('; ');
}

/**
 * How long the changes whose `created` was verified after them arrived behind it (their
 * `updated` verified after their `created`): what the expediter's looks and the live lane add
 * once the `created` is out. Pure.
 */
function describeWaitsBehindCreated(round: Round, createdAt: ReadonlyMap<string, number>) {
  const gaps = [...round.arrived]
    .flatMap(([id, at]) => {
      const created = createdAt.get(id);
      return created !== undefined && created > round.changedAt.get(id)! ? [at - created] : [];
    })
    .sort((a, b) => a - b);
  if (gaps.length === 0) return 'no change waited for its created';
  const over = gaps.filter((gap) => gap > 200).length;
  return (
    `${gaps.length} changes arrived behind a created verified after them: ` +
    `p50 ${ms(percentile(gaps, 50))} after it, max ${ms(gaps.at(-1)!)}, ${over} more than 200 ms`
  );
}

/** Prints and records a round's latencies, and how many changes overtook their `created`. */
function report(figure: string, round: Round, createdAt: ReadonlyMap<string, number>): void {
  const { changedAt, arrived } = round;
  const latencies = [...arrived].map(([id, at]) => at - changedAt.get(id)!).sort((a, b) => a - b);
  const queued = [...arrived.keys()].filter((id) => createdAt.has(id));
  const overtaken = queued.filter((id) => createdAt.get(id)! > arrived.get(id)!).length;
  const lost = changedAt.size - arrived.size;
  const p50 = formatNumber(percentile(latencies, 50));
  const p99 = percentile(latencies, 99);
  console.log(
    `  ${figure}: ${arrived.size} of ${changedAt.size} changes verified; p50 ${p50} ms, ` +
      `p99 ${formatNumber(p99)} ms, max ${formatNumber(latencies.at(-1) ?? Number.NaN)} ms; ` +
      `${queued.length} of them after their backfill created, ${overtaken} before it (out of order)`,
  );
  console.log(`    slowest: ${describeSlowest(round, createdAt, 3)}`);
  console.log(`    ${describeWaitsBehindCreated(round, createdAt)}`);
  recordFigure({
    figure,
    measured: `p50 ${p50} ms, p99 ${formatNumber(p99)} ms; ${overtaken} out of order${lost ? `, ${lost} never arrived` : ''}`,
    target: 'p99 <= 2 s, in order',
    met: p99 <= 2000 && overtaken === 0 && lost === 0,
  });
}

/**
 * Mutation → verified webhook for entities an emitting backfill of their own stream has queued,
 * in the user's path: `change-bridge start` as a child process, 1 s polling, the connector's
 * 200 requests per 30 s in force, 100,000 customers synced (baseline) and then backfilled with
 * events (`backfill --emit`: a `created` of each, in the bulk lane); 5 s into the backfill,
 * 200 customers picked at random are changed. Most have a `created` still queued, which their
 * change must follow (a subject's order). Then `start` is stopped while the backfill's events
 * still wait on disk, started again on the same data dir, and 200 other customers are changed.
 * Also counts the changes whose `created` arrived after them (out of order: none may).
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log('latency of changes to entities a backfill has queued (1 s polling)');
  const sim = await startSimulator({
    seed: 1,
    size: 'large',
    customers: CUSTOMERS,
    clock: systemClock,
  });
  const receiver = await startBenchReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-latency-backfill-'));
  const env = { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d' };
  const start = () => startBridgeChild({ env, pollInterval: '1s', dataDir });
  let bridge = await start();
  const rounds: Round[] = [];
  const createdAt = new Map<string, number>();
  receiver.onVerified = (webhook) => {
    if (webhook.type === 'customer.created' && !createdAt.has(webhook.subject))
      createdAt.set(webhook.subject, webhook.at);
    if (webhook.type !== 'customer.updated' || !webhook.body.includes('bench backfill latency'))
      return;
    const round = rounds.find((r) => r.changedAt.has(webhook.subject));
    if (round && !round.arrived.has(webhook.subject))
      round.arrived.set(webhook.subject, webhook.at);
  };
  const nextRound = () => {
    const round: Round = { changedAt: new Map(), arrived: new Map() };
    rounds.push(round);
    return round;
  };
  const changedBefore = () => new Set(rounds.flatMap((round) => [...round.changedAt.keys()]));
  try {
    const started = performance.now();
    while (!StreamsSchema.parse(await bridge.call('GET', '/streams')).streams[0]?.initialSyncDone)
      await sleep(500);
    console.log(
      `  first sync (baseline) of ${formatNumber(CUSTOMERS)} customers: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const { secret } = SubscriptionSchema.parse(
      await bridge.call('POST', '/subscriptions', { url: receiver.url, events: ['customer.*'] }),
    );
    receiver.setSecret(secret);
    const model = sim.controls.model;
    const ids = activeCustomerIds(model);
    await bridge.call('POST', '/backfill', { entities: ['customer'], emit: true });
    await sleep(FIRST_CHANGE_AFTER_MS);
    const first = nextRound();
    await changeCustomers(model, ids, first, changedBefore());
    report(
      'Mutation -> verified webhook, 1 s polling, entities an emitting backfill of 100,000 customers has queued',
      first,
      createdAt,
    );

    // Stopped with the backfill's events waiting on disk, and started again on them.
    await bridge.stop();
    bridge = await start();
    const second = nextRound();
    await changeCustomers(model, ids, second, changedBefore());
    report(
      'Mutation -> verified webhook, 1 s polling, entities a backfill has queued, after a restart in its middle',
      second,
      createdAt,
    );
  } finally {
    await bridge.stop();
    await receiver.close();
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
