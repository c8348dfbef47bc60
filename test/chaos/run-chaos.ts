import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { seededRandom } from '../../shared/clock.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import type { JournalEntry } from '../../shared/simulator/journal.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { compareEvents } from '../polling/journal-oracle.ts';
import { freePort } from '../support/free-port.ts';
import { modelContent } from '../support/model-content.ts';
import { runBin } from '../support/run-bin.ts';
import {
  expectedLocalEvents,
  recordEnterprises,
  sweptDeletion,
} from '../support/visible-changes.ts';
import { type ArrivalLatency, arrivalLatency } from './arrival-latency.ts';
import { backfillArrivals } from './backfill-arrivals.ts';
import { bridgeProcess } from './bridge-process.ts';
import {
  type AcceptedWebhook,
  type ReceiverFault,
  type RetryAfterViolation,
  type SlowSpells,
  startChaosReceiver,
} from './chaos-receiver.ts';
import { drainOutstanding } from './drain.ts';
import { duplicateIds, outOfOrderArrivals, revisitedStates } from './duplicate-ids.ts';
import { endStateMismatches } from './end-states.ts';

/**
 * How long after a 429 the bridge may still not know of its pause: the answer read and the
 * endpoint's pause written to its store. A SIGKILL within it may take the pause with it, and
 * the bridge started again cannot honour a pause it never learned.
 */
export const PAUSE_LEARNING_MS = 100;

/**
 * The Retry-After violations the bridge could have avoided: those whose pause it had time to
 * learn before any SIGKILL ({@link PAUSE_LEARNING_MS}). Pure.
 * @example bindingViolations([{ at: 600, pausedFrom: 0, pausedUntil: 2000, webhookId: 'w' }], [0]) // []
 */
export function bindingViolations(
  violations: readonly RetryAfterViolation[],
  killedAt: readonly number[],
): RetryAfterViolation[] {
  return violations.filter(
    (v) => !killedAt.some((at) => at >= v.pausedFrom && at <= v.pausedFrom + PAUSE_LEARNING_MS),
  );
}

/** Settings of one chaos run. */
export interface ChaosOptions {
  /** How long activity, connector faults and kills go on. */
  durationMs: number;
  seed: number;
  activityPerSecond: number;
  /** Share of connector requests answered with a fault (429, 408, 500, malformed, drop, slow). */
  connectorFaultRate: number;
  /** Share of first delivery attempts the receiver fails (500, 429, reset, hang). */
  receiverFailShare: number;
  /** Spells in which the receiver answers slowly (see SlowSpells), if any. */
  slowSpells?: SlowSpells;
  /** A SIGKILL comes after a random pause in this range, and the bridge restarts at once. */
  killEveryMs: readonly [number, number];
  /**
   * How long the bridge may go, after activity stops, without delivering any more of what is
   * still awaited (see drainOutstanding); the drain ends at once when nothing is.
   */
  drainTimeoutMs: number;
  /**
   * Customers of the simulator's dataset (default: the small dataset's 300); more make an
   * emitting backfill long enough for SIGKILLs to land in it.
   */
  customers?: number;
  /**
   * An emitting backfill of every customer (`POST /backfill`, `emit: true`), begun this long
   * after the chaos does: its `created` go out through the bulk lane beside the live changes,
   * SIGKILLs and faults included. Each customer that existed throughout must get one.
   */
  backfillAfterMs?: number;
  /** Leaves the bridge's data dir in place after the run (logged), for `events list` and the like. */
  keepDataDir?: boolean;
  log?: (line: string) => void;
}

/** What a chaos run found, against the simulator's journal. */
export interface ChaosResult {
  journaled: number;
  expected: number;
  delivered: number;
  missing: string[];
  /**
   * Net updates of records deleted and restored during the run that arrived as the restore's
   * `created` only (the polls saw the update with the deletion or the restore; see
   * OracleOptions.acrossPolls): delivered, not missing.
   */
  updatesAsRestores: string[];
  /**
   * Subjects whose last delivered event disagrees with how the journal leaves them (see
   * endStateMismatches): a lost delete of a record created in the run, a lost restore.
   */
  endStateMismatches: string[];
  /**
   * The emitting backfill, if one ran: customers that existed from its start to the end, and
   * those of them that got no `created` detected since it began.
   */
  backfill?: { subjects: number; missing: string[] };
  /**
   * How long after their detection the webhooks were verified (seconds; a backfill's first
   * `created` of each customer left out: they wait behind live work on purpose).
   */
  latency: ArrivalLatency | undefined;
  /**
   * Extra event ids for one change: a subject's transition delivered again under another id
   * (a backfill's first `created` of each customer apart: it publishes them again on purpose).
   */
  duplicateIds: number;
  /** New changes that put a record back to content it had before (reported, not a fault). */
  revisitedStates: number;
  /** Changes that first arrived after a later change of their subject (see outOfOrderArrivals). */
  outOfOrder: number;
  /** Requests inside a pause the bridge had learned (see bindingViolations). */
  retryAfterViolations: number;
  /** Requests inside a pause a SIGKILL took before the bridge could learn it (not counted above). */
  unlearnedPauseArrivals: number;
  /** The receiver's 429s, and those whose pause the bridge was seen to store while it ran. */
  pauses: number;
  pausesLearned: number;
  /** Most connector requests that arrived within any 30 s, as the simulator logged them. */
  busiest30s: number;
  kills: number;
  rejectedSignatures: number;
  receiverFailures: Record<ReceiverFault, number>;
  /** Requests the receiver answered slowly, in its slow spells. */
  slowAnswers: number;
  /** Exit code of the final SIGTERM stop. */
  exitCode: number | null;
  /** Every webhook the receiver accepted, in arrival order, and the run's journal: for a dump. */
  accepted: AcceptedWebhook[];
  journal: JournalEntry[];
  /** When each SIGKILL hit and the bridge was started again (epoch ms). */
  killedAt: number[];
  violations: RetryAfterViolation[];
}

/** The one-line summary the issue asks for. */
export function formatChaosResult(result: ChaosResult): string {
  const backfill = result.backfill
    ? `, backfill created ${result.backfill.subjects - result.backfill.missing.length} of ${result.backfill.subjects}`
    : '';
  const { latency } = result;
  const seconds = (value: number) => `${value.toFixed(1)} s`;
  const verified = latency
    ? `, verified after detection p50 ${seconds(latency.p50)} p99 ${seconds(latency.p99)} max ${seconds(latency.max)}`
    : '';
  return `journaled ${result.journaled}, expected ${result.expected}, delivered ${result.delivered}, missing ${result.missing.length}${backfill}, duplicate ids ${result.duplicateIds}, out of order ${result.outOfOrder}, Retry-After violations ${result.retryAfterViolations} (${result.pausesLearned} of ${result.pauses} pauses seen stored)${result.unlearnedPauseArrivals > 0 ? ` (and ${result.unlearnedPauseArrivals} in pauses a SIGKILL took within ${PAUSE_LEARNING_MS} ms of their 429)` : ''}, busiest 30 s ${result.busiest30s} (${result.kills} SIGKILLs)${verified}`;
}

/** Most timestamps inside any window of `windowMs`. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

/**
 * The poll interval of the first sync, which only sets the baseline before any chaos: the live
 * reserve of streams polled every 2 s would hold back four fifths of the budget from its
 * windows (~35 s on the small dataset instead of ~10 s). The chaos runs after a restart at the
 * run's own interval.
 */
const FIRST_SYNC_POLL_INTERVAL = '30s';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(250);
  }
  return false;
}

const SubscriptionPauseSchema = z.object({ pausedUntil: z.string().nullable() });

/** Until when the bridge at `api` has stored the pause of `subscriptionId`'s endpoint, if it has. */
async function storedPauseOf(api: string, subscriptionId: string): Promise<number | undefined> {
  const response = await fetch(`${api}/subscriptions/${subscriptionId}/health`);
  if (!response.ok) return undefined;
  const { pausedUntil } = SubscriptionPauseSchema.parse(await response.json());
  return pausedUntil === null ? undefined : Date.parse(pausedUntil);
}

/**
 * Begins an emitting backfill of every customer at the bridge at `api`, asking again until it
 * answers (a SIGKILL may have it restarting); resolves with when it was asked, the earliest
 * detection time its events can carry.
 */
async function startCustomerBackfill(api: string, signal: AbortSignal): Promise<number> {
  for (;;) {
    const askedAt = Date.now();
    const response = await fetch(`${api}/backfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entities: ['customer'], emit: true }),
      signal,
    }).catch(() => undefined);
    if (response?.status === 202) return askedAt;
    signal.throwIfAborted();
    await sleep(250);
  }
}

/** Ids of the customers the simulator holds now, deleted ones left out. */
function liveCustomers(sim: RunningSimulator): Set<string> {
  const ids = new Set<string>();
  for (const entry of sim.controls.model.customers.all())
    if (entry.deletedMs === null) ids.add(entry.record.Id);
  return ids;
}

async function streamsCaughtUp(api: string): Promise<boolean> {
  try {
    const response = await fetch(`${api}/streams`);
    if (!response.ok) return false;
    const { streams } = (await response.json()) as { streams: { lastSuccessAt?: unknown }[] };
    return streams.length > 0 && streams.every((stream) => stream.lastSuccessAt);
  } catch {
    return false;
  }
}

/**
 * Runs the whole bridge as users do (`change-bridge start` as a child process) against the
 * simulator with activity and faults on, a receiver that fails a share of deliveries, and
 * SIGKILLs at random moments with a restart on the same data dir; then compares what the
 * receiver verified with the simulator's journal.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => {});
  const random = seededRandom(options.seed);
  const sim = await startSimulator({
    seed: options.seed,
    size: 'small',
    ...(options.customers === undefined ? {} : { customers: options.customers }),
  });
  const receiver = await startChaosReceiver({
    failShare: options.receiverFailShare,
    retryAfterSeconds: 2,
    random: seededRandom(options.seed + 1),
    ...(options.slowSpells ? { slow: options.slowSpells } : {}),
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'bridge-chaos-'));
  const bridge = bridgeProcess({
    port: await freePort(),
    dataDir,
    pollInterval: '2s',
    env: {
      ...connectorEnvOf(sim),
      POLL_HISTORY_START: '400d',
    },
  });
  try {
    bridge.start(FIRST_SYNC_POLL_INTERVAL);
    if (!(await until(() => streamsCaughtUp(bridge.api), 120_000)))
      throw new Error(`the first sync did not finish:\n${bridge.tail()}`);
    const stopped = await bridge.stop();
    if (stopped !== 0) throw new Error(`the bridge exited ${stopped} after its first sync`);
    bridge.start();
    if (!(await until(() => streamsCaughtUp(bridge.api), 60_000)))
      throw new Error(`the bridge did not answer after its restart:\n${bridge.tail()}`);
    const added = await runBin([
      'subscriptions',
      'add',
      '--url',
      receiver.url,
      '--json',
      '--api',
      bridge.api,
    ]);
    if (added.code !== 0) throw new Error(`subscriptions add failed: ${added.stderr}`);
    const subscription = JSON.parse(added.stdout) as { id: string; secret: string };
    receiver.setSecret(subscription.secret);
    receiver.probePauses(() => storedPauseOf(bridge.api, subscription.id));

    const from = sim.controls.journal().at(-1)?.seq ?? 0;
    const before = modelContent(sim);
    const enterprises = new Map<string, string>();
    recordEnterprises(sim, enterprises);
    sim.controls.setFaults({ rate: options.connectorFaultRate });
    sim.controls.startActivity(options.activityPerSecond);
    log(
      `chaos: activity ${options.activityPerSecond}/s, connector faults ${options.connectorFaultRate}, receiver fails ${options.receiverFailShare}`,
    );

    const endAt = Date.now() + options.durationMs;
    const backfillAsked = new AbortController();
    const backfill =
      options.backfillAfterMs === undefined
        ? undefined
        : sleep(options.backfillAfterMs).then(async () => {
            const subjects = liveCustomers(sim);
            const startedAt = await startCustomerBackfill(bridge.api, backfillAsked.signal);
            log(`chaos: emitting backfill of ${subjects.size} customers begun`);
            return { startedAt, subjects };
          });
    // Told once the run ends: a backfill never begun is an error of the run, not unhandled.
    backfill?.catch(() => {});
    let kills = 0;
    const killedAt: number[] = [];
    for (;;) {
      const [low, high] = options.killEveryMs;
      const pause = low + random() * (high - low);
      if (Date.now() + pause >= endAt) break;
      await sleep(pause);
      killedAt.push(Date.now());
      await bridge.kill();
      kills++;
      bridge.start();
      log(
        `chaos: SIGKILL ${kills} and restart; ${receiver.accepted.length} webhooks accepted so far`,
      );
    }
    await sleep(Math.max(0, endAt - Date.now()));
    sim.controls.stopActivity();

    backfillAsked.abort();
    const begun = await backfill;
    const entries = sim.controls.journal(from);
    recordEnterprises(sim, enterprises);
    const expected = expectedLocalEvents(sim, entries, enterprises, before, modelContent(sim));
    const got = () => receiver.accepted.map(({ type, subject }) => ({ type, subject }));
    const wrongEnds = () => endStateMismatches(entries, receiver.accepted, sweptDeletion);
    const aliveAtEnd = liveCustomers(sim);
    // The customers that existed from the backfill's start to the end.
    const backfillSubjects = [...(begun?.subjects ?? [])].filter((id) => aliveAtEnd.has(id));
    const backfilled = () =>
      begun &&
      backfillArrivals(receiver.accepted, {
        entityType: 'customer',
        startedAt: begun.startedAt,
        subjects: backfillSubjects,
      });
    await drainOutstanding(
      () =>
        compareEvents(expected, got()).missing.length +
        wrongEnds().length +
        (backfilled()?.missing.length ?? 0),
      options.drainTimeoutMs,
    );
    const exitCode = await bridge.stop();
    const { missing, byAlternative } = compareEvents(expected, got());
    const endsWrong = wrongEnds();
    const republished = backfilled();
    if (missing.length > 0 || endsWrong.length > 0 || (republished?.missing.length ?? 0) > 0)
      log(`chaos: bridge output before the end:\n${bridge.tail()}`);
    return {
      journaled: entries.length,
      expected: expected.length,
      delivered: expected.length - missing.length,
      missing,
      updatesAsRestores: byAlternative,
      endStateMismatches: endsWrong,
      ...(republished
        ? {
            backfill: { subjects: backfillSubjects.length, missing: republished.missing },
          }
        : {}),
      duplicateIds: duplicateIds(republished?.withoutRepublished ?? receiver.accepted),
      latency: arrivalLatency(republished?.withoutRepublished ?? receiver.accepted),
      revisitedStates: revisitedStates(receiver.accepted),
      outOfOrder: outOfOrderArrivals(receiver.accepted),
      retryAfterViolations: bindingViolations(receiver.violations, killedAt).length,
      unlearnedPauseArrivals:
        receiver.violations.length - bindingViolations(receiver.violations, killedAt).length,
      pauses: receiver.failures['429'],
      pausesLearned: receiver.pausesLearned,
      busiest30s: busiestWindow(
        sim.controls.requestLog().map((entry) => Date.parse(entry.time)),
        30_000,
      ),
      kills,
      rejectedSignatures: receiver.rejected,
      receiverFailures: { ...receiver.failures },
      slowAnswers: receiver.slowAnswers,
      exitCode,
      accepted: receiver.accepted,
      journal: entries,
      killedAt,
      violations: [...receiver.violations],
    };
  } finally {
    await bridge.kill();
    sim.controls.stopActivity();
    await receiver.close();
    await sim.close();
    if (options.keepDataDir) log(`chaos: data dir kept at ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}
