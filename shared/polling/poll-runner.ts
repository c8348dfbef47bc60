import { setMaxListeners } from 'node:events';
import { linkedSignal } from '../concurrency.ts';
import { describeThrown } from '../errors.ts';
import type { StreamState } from '../state/state-store.ts';
import { isLiveBesidePass, isLiveStream } from './backfill-state.ts';
import { backlogAboveBoundNow, waitsForBacklog } from './backlog-wait.ts';
import { CatchUpSlots, catchUpSlots, reservedCatchUpSlots } from './catch-up-slots.ts';
import { DueSchedule } from './due-schedule.ts';
import { HeldStreamProbe } from './held-stream-probe.ts';
import { PlannerSleep } from './planner-sleep.ts';
import { type PollDeps, type StreamDefinition, withSavedStates } from './poll-context.ts';
import {
  type HeldStream,
  POLL_LOOP_CONCURRENCY_DEFAULT,
  type PollLoop,
  type PollLoopOptions,
} from './poll-loop-options.ts';
import { pollStream } from './poll-stream.ts';
import { failureBackoffMs, plannerSleepMs } from './schedule.ts';
import { StreamStateView } from './stream-state-view.ts';

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
  /** Which of `running` hold a catch-up slot, and whose turn is next (see {@link CatchUpSlots}). */
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
  /** The stream states as the loop knows them, and its full reads (see {@link StreamStateView}). */
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
        const failedBefore =
          heldBack.get(streamId)?.failures ?? stateView.get(streamId)?.consecutiveFailures ?? 0;
        const failures = failedBefore + 1;
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
    void backlogAboveBoundNow(deps).then((high) => {
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
