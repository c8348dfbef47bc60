import { setMaxListeners } from 'node:events';
import { linkedSignal, mapWithConcurrency } from '../concurrency.ts';
import { describeThrown } from '../errors.ts';
import type { StreamState } from '../state/state-store.ts';
import { isLiveBesidePass, isLiveStream } from './backfill-state.ts';
import { CatchUpSlots, catchUpSlots, reservedCatchUpSlots } from './catch-up-slots.ts';
import { DueSchedule } from './due-schedule.ts';
import { HELD_STORE_PROBE_MS, HeldStreamProbe } from './held-stream-probe.ts';
import { PlannerSleep } from './planner-sleep.ts';
import { type PollDeps, type StreamDefinition, withSavedStates } from './poll-context.ts';
import { type PollOutcome, pollStream } from './poll-stream.ts';
import { dueStreams, failureBackoffMs, plannerSleepMs } from './schedule.ts';
import type { StateChangeSource } from './state-change-notices.ts';
import {
  FULL_STATE_READ_INTERVAL_MS,
  FULL_STATE_READ_RETRY_MAX_MS,
  StreamStateView,
} from './stream-state-view.ts';
import { isLiveWindow, plansLiveWindow, type WindowSettings } from './windows.ts';

/** Streams polled at once by one process. */
export const POLL_CONCURRENCY_DEFAULT = 4;

/**
 * One planner tick run in-process: reads every stream state, picks the due streams and polls
 * them with bounded concurrency. In AWS the planner enqueues poll jobs instead and each
 * poller Lambda calls {@link pollStream} for one stream.
 */
export async function pollDueStreams(
  definitions: readonly StreamDefinition[],
  deps: PollDeps,
  owner: string,
  concurrency = POLL_CONCURRENCY_DEFAULT,
): Promise<PollOutcome[]> {
  const states = new Map((await deps.store.listStreams()).map((state) => [state.streamId, state]));
  const due = dueStreams(definitions, states, deps.clock.now());
  return mapWithConcurrency(due, concurrency, (definition) => pollStream(definition, deps, owner));
}

/** A running poll loop. */
export interface PollLoop {
  /** Lets the in-flight tick finish, then resolves. */
  stop(): Promise<void>;
  /**
   * The streams held back in memory now (see {@link PollLoopOptions.onStreamHeld}), by id: what
   * their stored states do not say (they were not stored), for `streams list`.
   */
  held(): ReadonlyMap<string, HeldStream>;
}

/**
 * Streams the local loop polls at once unless told otherwise (`POLL_CONCURRENCY`): enough to
 * hide connector round trips and store calls across a thousand hotels' live polls (in two
 * minutes of `npm run bench:connections`, 64 slots polled 6,800 streams a minute and 128 polled
 * 7,200), while first syncs, which hold their pages in memory, keep {@link catchUpSlots} (32).
 */
export const POLL_LOOP_CONCURRENCY_DEFAULT = 128;

/** Options of {@link startPollLoop}. */
export interface PollLoopOptions {
  /** The streams to poll, or a function read on every tick (connections added at run time). */
  definitions: readonly StreamDefinition[] | (() => readonly StreamDefinition[]);
  deps: PollDeps;
  /**
   * The client and stop signal of a stream's connection (one client and budget per token);
   * undefined when the connection left, and the stream is not started. Default: `deps.client`.
   */
  connectionOf?: (definition: StreamDefinition) =>
    | {
        client: PollDeps['client'];
        signal?: AbortSignal;
        /** Told of the stream's poll as it starts (the connection waits for it when it leaves). */
        track?(poll: Promise<unknown>): void;
      }
    | undefined;
  owner: string;
  /** How often the planner looks for due streams. */
  tickMs: number;
  /** Streams polled at once (default {@link POLL_LOOP_CONCURRENCY_DEFAULT}). */
  concurrency?: number;
  onOutcome?: (outcome: PollOutcome) => void;
  /**
   * A failure of the loop's own: a read of every stream state (`'state read'`, tried again
   * after {@link FULL_STATE_READ_RETRY_MAX_MS}'s doubling wait), or an error planning a tick
   * (`'tick'`). A stream's poll is never told here: see `onOutcome` and `onStreamHeld`.
   */
  onError?: (error: unknown, during: 'state read' | 'tick') => void;
  /**
   * A stream's poll that failed with nothing recorded, its failure's own write failing too (the
   * store refusing writes: a full disk): the loop holds the stream back in memory until
   * `retryAt`, as a stored backoff would. Told once per attempt, so once per backoff step.
   */
  onStreamHeld?: (held: HeldStream) => void;
  /** A held stream's poll that ended recorded again (its store writes go through). */
  onStreamResumed?: (resumed: { streamId: string; failures: number }) => void;
  /**
   * A small write of the loop's own to the store (the local runtime's: one item, rewritten).
   * While streams are held, the loop tries it once after they were, and every
   * {@link HELD_STORE_PROBE_MS} while it fails; once it goes through after failing (the disk has
   * room again), every held stream is due again at once, instead of waiting out a backoff that
   * reaches 30 minutes. A stream held while the probe goes through (a failure of its own, not the
   * store's) keeps its backoff. Without it, held streams wait out their backoffs.
   */
  probeWrites?: () => Promise<void>;
  /** The store took the loop's write again after refusing it: `released` held streams are due. */
  onStoreWritable?: (released: number) => void;
  /**
   * Tells of stream states changed outside the loop's polls (the admin API's resets, backfills
   * and removals): the loop re-reads those streams at once. Changes it is not told of wait for
   * its next full read ({@link FULL_STATE_READ_INTERVAL_MS}).
   */
  stateChanges?: StateChangeSource;
}

/** A stream held back in memory after a poll whose failure could not be stored. */
export interface HeldStream {
  streamId: string;
  /** The error its poll ended with (the store's, when it refused the failure's write). */
  error: string;
  /** Failed polls in a row: the stored ones and those not stored since. */
  failures: number;
  /** Not polled by this process before then ({@link failureBackoffMs} after the failure). */
  retryAt: number;
}

/**
 * The local runtime's planner: every `tickMs`, starts due streams that are not already being
 * polled, without waiting for the others. At most `concurrency` streams poll at once (default
 * {@link POLL_LOOP_CONCURRENCY_DEFAULT}): live streams first, in due order; streams still
 * catching up (first sync, a window in progress, a backfill pass) take at most
 * {@link catchUpSlots} of them, so a long first sync or backfill never holds back a caught-up
 * stream's next poll (a stream's own live polls go on while its pass waits), and at least
 * {@link reservedCatchUpSlots} while any wait, so none waits for ever behind live ones; 1,000
 * connections added at once start their 13,000 first syncs a few at a time instead of all in
 * one tick. Runs until stopped.
 */
export function startPollLoop(options: PollLoopOptions): PollLoop {
  const controller = new AbortController();
  // Every stream in flight (and each of its requests waiting for the token's budget) listens
  // for the stop: more than Node's default of 10 listeners is expected, not a leak.
  setMaxListeners(0, controller.signal);
  const deps: PollDeps = { ...options.deps, signal: controller.signal };
  const given = options.definitions;
  const definitionsNow = typeof given === 'function' ? given : () => given;
  const running = new Map<string, Promise<void>>();
  const limit = Math.max(1, options.concurrency ?? POLL_LOOP_CONCURRENCY_DEFAULT);
  /** Which streams in `running` are catching up, and whose turn it is to (see {@link CatchUpSlots}). */
  const catchUp = new CatchUpSlots(limit);
  /**
   * Streams whose last polls failed and could not store it (a store refusing writes): the
   * stored state still says due, so each would poll again at every tick, a connector request or
   * more each time. Held back here by the backoff their stored state would have had, until a
   * poll of theirs ends recorded.
   */
  const heldBack = new Map<string, HeldStream>();
  /** The streams by when they are due: a tick looks at the due ones alone. */
  const schedule = new DueSchedule({
    stateOf: (streamId) => stateView.get(streamId),
    readyAt: (streamId, dueAt) =>
      running.has(streamId)
        ? Number.POSITIVE_INFINITY
        : Math.max(dueAt, heldBack.get(streamId)?.retryAt ?? dueAt),
  });
  /** Releases the held streams once the store takes writes again (see {@link HeldStreamProbe}). */
  const heldProbe = new HeldStreamProbe({
    probeWrites: options.probeWrites,
    held: heldBack,
    clock: deps.clock,
    onReleased: (streamId) => schedule.update(streamId),
    onStoreWritable: (released) => options.onStoreWritable?.(released),
  });
  const stateView = new StreamStateView({
    store: deps.store,
    clock: deps.clock,
    tickMs: options.tickMs,
    onStateChanged: (streamId) => schedule.update(streamId),
    onAllReplaced: () => schedule.invalidate(),
    onError: (error) => options.onError?.(error, 'state read'),
  });
  const unsubscribe = options.stateChanges?.subscribe((streamIds) => stateView.reread(streamIds));
  /**
   * `catchingUp`: the run takes a catch-up slot; `passWaits`: it reads the live window of a
   * stream whose backfill pass waits for one (see {@link PollDeps.passWaits}).
   */
  const start = (definition: StreamDefinition, catchingUp: boolean, passWaits = false) => {
    const connection = options.connectionOf
      ? options.connectionOf(definition)
      : { client: deps.client };
    if (!connection) return;
    let saved: StreamState | undefined;
    // Stopping the process or disabling the connection both stop its poll at once. Linked, not
    // AbortSignal.any: both signals live long, and Node 20 keeps every signal made from them
    // with `any` for as long as they do (one per poll, for ever); released once the poll ends.
    // Every poll of the connection in flight listens to its signal: expected, not a leak.
    if (connection.signal) setMaxListeners(0, connection.signal);
    const linked = linkedSignal(controller.signal, connection.signal);
    const runDeps: PollDeps = {
      ...deps,
      store: withSavedStates(deps.store, (state) => {
        if (state.streamId === definition.streamId) saved = state;
      }),
      client: connection.client,
      signal: linked.signal ?? controller.signal,
      ...(passWaits ? { passWaits } : {}),
    };
    const { streamId } = definition;
    const run = pollStream(definition, runDeps, options.owner)
      .then(async (outcome) => {
        // Its next due time, without waiting for the next full read: the state its poll wrote
        // last (no read per poll), or a re-read when it wrote none (skipped).
        const state = saved ?? (await deps.store.getStream(streamId));
        stateView.keep(streamId, state);
        const wasHeld = heldBack.get(streamId);
        if (wasHeld && (outcome.kind !== 'skipped' || outcome.reason === 'parked')) {
          heldBack.delete(streamId);
          options.onStreamResumed?.({ streamId, failures: wasHeld.failures });
        }
        options.onOutcome?.(outcome);
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        // Nothing recorded the failure: held back here, by the backoff it would have stored.
        const before =
          heldBack.get(streamId)?.failures ?? stateView.get(streamId)?.consecutiveFailures ?? 0;
        const failures = before + 1;
        const retryAt = deps.clock.now() + failureBackoffMs(failures, definition.intervalMs);
        const held = { streamId, error: describeThrown(error), failures, retryAt };
        heldBack.set(streamId, { ...held });
        heldProbe.countHold();
        options.onStreamHeld?.(held);
      })
      .finally(() => {
        linked.release();
        running.delete(definition.streamId);
        schedule.update(definition.streamId);
        const readyAt = schedule.readyAtOf(definition.streamId);
        if (readyAt !== undefined) plannerSleep.wakeBy(readyAt);
        catchUp.free(definition);
        refill();
      });
    running.set(definition.streamId, run);
    schedule.update(definition.streamId);
    connection.track?.(run);
    if (catchingUp) catchUp.take(definition);
  };
  const full = () => running.size >= limit || controller.signal.aborted;
  /** Due streams of the last tick not started yet, in start order: live ones, then catch-ups. */
  let waitingLive: StreamDefinition[] = [];
  let waitingCatchUp: StreamDefinition[] = [];
  /**
   * Streams of the last tick running a backfill pass beside their live polls (see
   * {@link isLiveBesidePass}): in both lists, the live one for their live poll, the other for
   * their pass.
   */
  let besidePass = new Set<string>();
  let refillScheduled = false;
  /**
   * Starts waiting streams while slots are free: live ones first (in due order), then those
   * catching up, within their share, round the connections: one per connection first, then a
   * second, and so on. The streams of one connection share its token's budget, which paces
   * bulk requests over the window, so a slot given to a connection already catching up would
   * mostly wait for that pace; spread over many connections, each slot's request goes out at
   * once. Started streams leave the lists; the rest wait for a free slot or the next tick.
   * A stream running a backfill pass takes its turn for a catch-up slot as those catching up do
   * (its run then reads its live window between slices of the pass); while it has none, its
   * live poll is started as a live stream's, a run that reads its live window alone. Without
   * it, its live polls stopped until a catch-up slot came, which long first syncs or other
   * passes could hold for as long as they ran.
   */
  const startWaiting = () => {
    let taken = 0;
    // Slots live streams leave free while streams catching up wait with fewer than the reserve running.
    const kept = () => catchUp.keptFree(waitingCatchUp.length > 0 || askingGauge.length > 0);
    const liveRoom = () => !full() && running.size < limit - kept();
    // With a catch-up slot free, the catch-up turns below may give a pass stream its pass.
    const passMayStart = catchUp.hasFree();
    const deferred: StreamDefinition[] = [];
    while (taken < waitingLive.length && liveRoom()) {
      const definition = waitingLive[taken++]!;
      if (running.has(definition.streamId)) continue;
      if (!besidePass.has(definition.streamId)) start(definition, false);
      else if (passMayStart) deferred.push(definition);
      else start(definition, false, true);
    }
    waitingLive.splice(0, taken, ...deferred);
    startCatchingUp();
    // Pass streams whose pass got no catch-up slot: their live polls go now.
    let started = 0;
    while (started < deferred.length && liveRoom()) {
      const definition = deferred[started++]!;
      if (!running.has(definition.streamId)) start(definition, false, true);
    }
    waitingLive.splice(0, started);
  };
  /** Starts streams catching up within their share, round the connections (see startWaiting). */
  const startCatchingUp = () => {
    waitingCatchUp = catchUp.startInTurn(waitingCatchUp, {
      full,
      isRunning: (streamId) => running.has(streamId),
      start: (definition) => start(definition, true),
    });
  };
  /** Streams of this tick that wait for the gauge's answer (see {@link waitsForBacklog}). */
  let askingGauge: StreamDefinition[] = [];
  /** Whether the gauge's answer is awaited (never two questions at once). */
  let gaugeInFlight = false;
  let tickNumber = 0;
  /**
   * The due streams of this tick, split into live and catching up, then started as slots allow.
   * Those whose poll would only find the backlog above its bound (see {@link waitsForBacklog})
   * join the others once the gauge says it is not: live streams never wait for the gauge, nor
   * does the next tick (a gauge slow or stalled under load would otherwise hold every poll), and
   * a tick with none of them asks nothing.
   */
  const startDue = (definitions: readonly StreamDefinition[]) => {
    const tick = ++tickNumber;
    waitingLive = [];
    waitingCatchUp = [];
    besidePass = new Set();
    const catchingUp: StreamDefinition[] = [];
    const held = new Set<StreamDefinition>();
    const now = deps.clock.now();
    const added = schedule.sync(definitions);
    // A connection added or enabled: its streams' states may have changed since the last full
    // read (removed and added again), and nothing else tells.
    if (added.length > 0) stateView.reread(added.map((definition) => definition.streamId));
    for (const definition of schedule.due(now)) {
      if (running.has(definition.streamId)) continue;
      if ((heldBack.get(definition.streamId)?.retryAt ?? now) > now) continue;
      const state = stateView.get(definition.streamId);
      const bulkOnly = waitsForBacklog(definition, state, deps.windows, now);
      // A listing stream's poll is its whole pass (listingJudging): a live poll in all but name.
      const live = !bulkOnly && (isLiveStream(state) || isLiveBesidePass(state));
      const pass = live && !isLiveStream(state) && definition.spec.strategy === 'windowed';
      if (live) waitingLive.push(definition);
      if (pass) besidePass.add(definition.streamId);
      if (!live || pass) {
        catchingUp.push(definition);
        if (deps.backlog && bulkOnly) held.add(definition);
        else waitingCatchUp.push(definition);
      }
    }
    // An earlier question still unanswered: those streams wait for its answer or a later tick.
    if (gaugeInFlight) held.clear();
    const asked = [...held];
    askingGauge = asked;
    startWaiting();
    if (asked.length === 0) return;
    gaugeInFlight = true;
    void backlogAboveBound(deps).then((high) => {
      gaugeInFlight = false;
      const sameTick = tick === tickNumber;
      if (sameTick) askingGauge = [];
      if (!high && !controller.signal.aborted) {
        const waiting = new Set(waitingCatchUp);
        const joining = asked.filter((d) => !running.has(d.streamId) && !waiting.has(d));
        const joins = new Set(joining);
        // In due order with the tick's others; asked a tick ago, they were due before them.
        waitingCatchUp = sameTick
          ? catchingUp.filter((d) => waiting.has(d) || joins.has(d))
          : [...joining, ...waitingCatchUp];
      }
      startWaiting();
    });
  };
  /**
   * A finished poll frees its slot at once, not at the next tick: a poll takes a fraction of a
   * tick, and a thousand connections' streams would otherwise start at most a slot's worth per
   * tick. Polls finishing together start their successors in one pass.
   */
  const refill = () => {
    if (refillScheduled) return;
    refillScheduled = true;
    setImmediate(() => {
      refillScheduled = false;
      if (stateView.loaded && !controller.signal.aborted) startWaiting();
    });
  };
  /** The planner's sleep between ticks, which a finished poll may cut short. */
  const plannerSleep = new PlannerSleep({
    clock: deps.clock,
    tickMs: options.tickMs,
    signal: controller.signal,
  });
  const loop = (async () => {
    while (!controller.signal.aborted) {
      plannerSleep.tickStarted(deps.clock.now());
      try {
        const definitions = definitionsNow();
        // Admin changes (reset, backfill) reach the loop as notices (stateChanges); these full
        // reads catch what none told. They run beside the ticks, so a slow read (13,000 states
        // of a loaded store) never holds back the start of due polls; finished polls keep their
        // own states current meanwhile.
        stateView.readAllIfDue(deps.clock.now());
        // A restart must not poll every stream at once: nothing starts before the first read.
        if (!stateView.loaded) await stateView.fullReadInFlight();
        heldProbe.probeIfDue();
        if (stateView.loaded) startDue(definitions);
      } catch (error) {
        options.onError?.(error, 'tick');
      }
      const now = deps.clock.now();
      const sleepMs = plannerSleepMs(options.tickMs, now, schedule.nextReadyAfter(now));
      await plannerSleep.sleepUntil(now + sleepMs);
    }
  })();
  return {
    async stop() {
      controller.abort();
      unsubscribe?.();
      await loop;
      await Promise.all(running.values());
      await stateView.idle();
      await heldProbe.inFlight();
    },
    held: () => new Map([...heldBack].map(([streamId, held]) => [streamId, { ...held }])),
  };
}

/**
 * Whether the undelivered backlog is above its bound now; false without a gauge, or when it
 * cannot tell (each poll asks again before its bulk pages).
 */
async function backlogAboveBound(deps: PollDeps): Promise<boolean> {
  return (await deps.backlog?.aboveBound().catch(() => false)) ?? false;
}

/**
 * Whether a stream does nothing but bulk windowed work now (a first sync, a window in progress
 * that is not a live one: see {@link isLiveWindow}, or, with none in progress, the window it
 * would plan now after its polls stopped or failed for a while: see {@link plansLiveWindow}),
 * which pauses while the undelivered backlog is above its bound: its poll would find the backlog
 * high at once, save, and be due again, so the loop leaves it until the backlog drains rather
 * than start it at every free slot (13,000 first syncs of 1,000 hotels added at once would
 * otherwise poll the store in a loop). A stream running a backfill pass reads its live window
 * first, and is started. Such a stream is catching up, not live, whatever its state. Pure.
 */
export function waitsForBacklog(
  definition: StreamDefinition,
  state: StreamState | undefined,
  windows: WindowSettings,
  nowMs: number,
): boolean {
  if (definition.spec.strategy !== 'windowed') return false;
  if (state === undefined || !state.initialSyncDone) return true;
  if (state.window !== null)
    return !isLiveWindow(state.window, windows.overlapMs, definition.intervalMs);
  return !plansLiveWindow(state.watermark, nowMs, windows, definition.intervalMs);
}
