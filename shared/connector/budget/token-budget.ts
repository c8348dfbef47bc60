import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { GrantLedger, TakeClaim } from './grant-ledger.ts';
import { grantIsLate } from './late-grant.ts';
import { liveGrants, slotFreeAt } from './sliding-log.ts';

/** Who asks: polls of caught-up streams (`live`) go first; first syncs, backfills, catch-up windows and sweeps (`bulk`) take what remains. */
export type BudgetPriority = 'live' | 'bulk';

/** One request's claim on the budget. */
export interface BudgetClaim {
  priority: BudgetPriority;
  /** The live stream asking and its polling interval: live streams size the live reserve. */
  streamId?: string;
  intervalMs?: number;
}

/** A grant of the budget: when it was taken, and for which lane (see {@link TokenBudget.giveBack}). */
export interface BudgetGrant {
  at: number;
  priority: BudgetPriority;
}

/** The server's budget and the margin held against it. */
export interface BudgetLimits {
  /** Requests per window (the Connector API: 200). */
  requests: number;
  /** The server's sliding window (30 s). */
  windowMs: number;
  /**
   * Added to the window on our side: a request counted when it is granted may arrive later
   * (transit, retries of a connection, clock skew between processes), so grants are spaced as
   * if the window were this much longer. The server then never sees more than `requests` in
   * its own window. A grant older than half of it when its request goes is moved to then first
   * ({@link TokenBudget.restamp}, GRANT_AGE_SHARE_OF_MARGIN).
   */
  marginMs: number;
}

/** What `streams list` shows of a token's budget. */
export interface BudgetView {
  requestsInWindow: number;
  limit: number;
  liveReserve: number;
  queued: { live: number; bulk: number };
  pausedUntil: number | null;
  slowedUntil: number | null;
}

/**
 * Largest share of the budget the live reserve may hold back from bulk work: four fifths, so
 * live streams asking up to that never wait behind bulk work, which keeps at least a fifth.
 * Five streams polled every second ask 155 of 200: 31 each in the 30.5 s the budget counts.
 * Capped at three quarters (150), bulk work filled the window to 200 and their polls waited up
 * to 0.55 s for a slot to free. While bulk work runs beside live streams asking more than this
 * share, each side is paced over its own: live polls over four fifths, bulk work over a fifth.
 */
export const LIVE_RESERVE_CAP_SHARE = 0.8;
/**
 * Share of the bulk capacity a window may spend at once while no live stream polls: a first
 * sync smaller than a window's budget is not stretched over the window.
 */
export const BULK_BURST_SHARE = 0.5;
/** How long after its last grant bulk work counts as running (its loop asks again at once). */
export const BULK_RUNNING_MS = 1_000;
/**
 * Pace after a 429: the server knows better than our count, so take this share of the limit for
 * a while. It is reached by spacing, never by a stop: bulk claims wait while the window holds
 * more than the share leaves them, and live claims may still bring the window to the server's
 * own limit, spread over the share (over four fifths of it while bulk work runs) when they ask
 * more. The window falls to the share as the grants made before the 429 age out, within one
 * window, while live polls go on. As a cap on every claim, a window holding more than the share
 * when the Retry-After ended granted nothing, live polls included, until it aged below it (the
 * soak: 4.4 to 5.1 s with no request after a 1 s Retry-After, 176 live requests a window).
 */
export const PACE_AFTER_THROTTLE = 0.75;
/** How long the lower pace lasts after the Retry-After has passed, in windows. */
export const SLOW_WINDOWS_AFTER_THROTTLE = 2;

interface Waiter {
  claim: BudgetClaim;
  resolve: (grant: BudgetGrant) => void;
  reject: (error: unknown) => void;
}

/** A grant whose request was not sent in time, to be moved to now ({@link TokenBudget.restamp}). */
interface LateGrant extends Waiter {
  grant: BudgetGrant;
  signal: AbortSignal | undefined;
}

/** The next claim to serve, the capacity it is taken against, and its paced slot. */
interface Turn {
  waiter: Waiter;
  capacity: number;
  pacedAt: number;
  interval: number;
}

/**
 * The budget of one AccessToken in one process: a priority scheduler in front of a
 * {@link GrantLedger}. Live claims are served before bulk ones at every free slot (spread evenly
 * over the window when the live streams alone ask more than the budget, and over four fifths of
 * it while bulk work runs and they ask more than that); bulk work may use the budget up to the
 * limit minus a live reserve (the requests the live streams make per window at their intervals,
 * at most four fifths of the budget: {@link LIVE_RESERVE_CAP_SHARE}). While live streams poll, bulk work
 * is paced evenly over the window, so it never takes a burst of slots (or of the process's CPU)
 * a live poll needs a moment later. While none does, bulk work may spend half its capacity at
 * once, then the slots left are spread evenly until the window's oldest grant ages out: a first
 * sync smaller than a window is not stretched over it, a long one runs at the full rate, and a
 * live poll that starts meanwhile still finds a slot soon. A 429 pauses every claim until its
 * Retry-After, then lowers the pace for a while ({@link PACE_AFTER_THROTTLE}): bulk work waits,
 * live polls go on spaced.
 */
export class TokenBudget {
  private readonly waiting: Record<BudgetPriority, Waiter[]> = { live: [], bulk: [] };
  /** Moved before any claim is served: the pump is this budget's one writer of the ledger. */
  private readonly lateGrants: LateGrant[] = [];
  private readonly liveStreams = new Map<string, { intervalMs: number; seenAt: number }>();
  private grants: number[] = [];
  /** Times of the live grants this process made: live use already spent counts against the reserve. */
  private liveGrantTimes: number[] = [];
  /**
   * The pacing slot of the last bulk grant: its time on the even schedule, which a late grant
   * (a claim that came after its slot, a timer that woke late) does not push back.
   */
  private lastBulkSlotAt = Number.NEGATIVE_INFINITY;
  /** The pacing slot of the last live grant, while live streams ask more than the budget. */
  private lastLiveSlotAt = Number.NEGATIVE_INFINITY;
  /**
   * When the ledger last refused the first bulk claim, the time its slot may free: until then
   * that claim waits apart, and live claims are served at their own slots meanwhile.
   */
  private bulkRefusedUntil = Number.NEGATIVE_INFINITY;
  private pausedUntilMs = 0;
  private slowedUntilMs = 0;
  private pumping = false;
  private wake: AbortController | undefined;
  /** This budget as a taker of the ledger, under which its live reserve is recorded. */
  private readonly taker = randomUUID();
  /**
   * The time a ledger stamps a grant with, read at each of its attempts: a grant is as old as
   * its write, not as the pump's turn (up to 20 lost write races earlier).
   */
  private readonly stamp = () => this.clock.now();

  constructor(
    private readonly key: string,
    private readonly limits: BudgetLimits,
    private readonly clock: Clock,
    private readonly ledger: GrantLedger,
  ) {}

  /** Waits for a grant. Rejects only when `signal` aborts (or the ledger fails). */
  acquire(claim: BudgetClaim, signal?: AbortSignal): Promise<BudgetGrant> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (claim.priority === 'live' && claim.streamId && claim.intervalMs)
      this.liveStreams.set(claim.streamId, {
        intervalMs: claim.intervalMs,
        seenAt: this.clock.now(),
      });
    return new Promise<BudgetGrant>((resolve, reject) => {
      const queue = this.waiting[claim.priority];
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      };
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const waiter: Waiter = {
        claim,
        resolve: (grant) => {
          settle();
          resolve(grant);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      // A live claim must not sleep behind a bulk claim's wait for its paced slot.
      if (claim.priority === 'live') this.wake?.abort();
      void this.pump();
    });
  }

  /**
   * Gives back a grant whose request never reached the server (the connection refused, the
   * connector's name not found): the server counted nothing, so neither does the budget, and
   * the polls that follow a connector's outage do not wait for the requests it refused to age
   * out of the window. The pace keeps its place. Resolves once the ledger has it (never
   * rejects: a ledger that fails leaves the grant counted, which errs on the safe side).
   */
  async giveBack(grant: BudgetGrant): Promise<void> {
    const live = grant.priority === 'live';
    removeOne(this.grants, grant.at);
    if (live) removeOne(this.liveGrantTimes, grant.at);
    // A slot came free: a bulk claim refused before may take it.
    this.bulkRefusedUntil = Number.NEGATIVE_INFINITY;
    await this.ledger
      .release(this.key, { grantAt: grant.at, ...(live ? { liveTaker: this.taker } : {}) })
      .catch(() => undefined);
    // A claim asleep until a slot frees may take this one now.
    this.wake?.abort();
    void this.pump();
  }

  /** Whether `grant` is too old to send now (see {@link grantIsLate}): restamp it first. */
  isLate(grant: BudgetGrant): boolean {
    return grantIsLate(grant.at, this.clock.now(), this.limits.marginMs);
  }

  /**
   * A grant for a request about to go later than its grant covers ({@link isLate}): the same
   * grant moved to now in the ledger, one write made by the pump before it serves any claim
   * (no write of this process races it). While the old grant still counts, the move leaves the
   * count as it was and the pace keeps its place; after a 429's pause, it is moved when the
   * pause ends. A grant so old that it left the window is claimed again in turn with `claim`
   * (`signal` aborts that wait). Rejects as {@link acquire} does.
   */
  restamp(grant: BudgetGrant, claim: BudgetClaim, signal?: AbortSignal): Promise<BudgetGrant> {
    return new Promise<BudgetGrant>((resolve, reject) => {
      this.lateGrants.push({ grant, claim, signal, resolve, reject });
      this.wake?.abort();
      void this.pump();
    });
  }

  /** Moves the first late grant to `now` in the ledger (see {@link restamp}). */
  private async moveLate(now: number): Promise<void> {
    const late = this.lateGrants[0]!;
    const { grant, claim } = late;
    const live = grant.priority === 'live';
    const capacity = live ? this.limits.requests : this.bulkCapacity(now, this.liveReserve(now));
    const taken = await this.ledger.restamp(
      this.key,
      { grantAt: grant.at, ...(live ? { liveTaker: this.taker } : {}) },
      this.stamp,
      this.windowMs(),
      capacity,
      this.claimOf(!live, now),
    );
    this.grants = taken.grants;
    if (taken.pausedUntil !== undefined) this.pauseUntil(taken.pausedUntil);
    if (taken.granted) {
      if (live) {
        removeOne(this.liveGrantTimes, grant.at);
        this.liveGrantTimes.push(taken.at);
      }
      late.grant = { at: taken.at, priority: grant.priority };
    }
    // Refused for a 429's pause, or answered during one: moved again once it ends.
    if (taken.pausedUntil !== undefined || this.clock.now() < this.pausedUntilMs) return;
    this.lateGrants.shift();
    if (taken.granted) return late.resolve(late.grant);
    // Refused: the old grant left the window, which is full. Claimed again, served by this pump.
    if (live) removeOne(this.liveGrantTimes, grant.at);
    this.acquire(claim, late.signal).then(late.resolve, late.reject);
  }

  /**
   * The server answered 429: nothing is sent before `untilMs`, and the pace stays lower for a
   * while. The pause is also written to the ledger, so every process taking grants of this
   * token waits for it (a failed write leaves the pause to this process). Resolves once the
   * ledger has it (never rejects): a caller about to end (a Lambda invocation) awaits it.
   */
  throttled(untilMs: number): Promise<void> {
    this.pauseUntil(untilMs);
    return this.ledger.pause(this.key, untilMs).catch(() => undefined);
  }

  /** Holds every claim until `untilMs`, then keeps a lower pace for a while. */
  private pauseUntil(untilMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    this.slowedUntilMs = Math.max(
      this.slowedUntilMs,
      untilMs + SLOW_WINDOWS_AFTER_THROTTLE * this.limits.windowMs,
    );
  }

  /** The figures `streams list` shows. */
  view(): BudgetView {
    const now = this.clock.now();
    return {
      requestsInWindow: liveGrants(this.grants, now, this.limits.windowMs).length,
      limit: this.limit(now),
      liveReserve: this.liveReserve(now),
      queued: { live: this.waiting.live.length, bulk: this.waiting.bulk.length },
      pausedUntil: this.pausedUntilMs > now ? this.pausedUntilMs : null,
      slowedUntil: this.slowedUntilMs > now ? this.slowedUntilMs : null,
    };
  }

  private windowMs(): number {
    return this.limits.windowMs + this.limits.marginMs;
  }

  private limit(now: number): number {
    const pace = now < this.slowedUntilMs ? PACE_AFTER_THROTTLE : 1;
    return Math.max(1, Math.floor(this.limits.requests * pace));
  }

  /** Requests the live streams make per window at their intervals. */
  private liveDemand(now: number): number {
    let demand = 0;
    for (const [streamId, { intervalMs, seenAt }] of this.liveStreams) {
      // A stream not seen live for three intervals and a window has left live polling.
      if (now - seenAt > 3 * intervalMs + this.windowMs()) this.liveStreams.delete(streamId);
      else demand += Math.ceil(this.windowMs() / intervalMs);
    }
    return demand;
  }

  /** The live streams' demand, capped at {@link LIVE_RESERVE_CAP_SHARE} of the budget. */
  private liveReserve(now: number, demand = this.liveDemand(now)): number {
    return Math.min(demand, this.liveShare(now));
  }

  /** The most live polls may take of a window while bulk work runs: the reserve's cap. */
  private liveShare(now: number): number {
    return Math.max(1, Math.floor(this.limit(now) * LIVE_RESERVE_CAP_SHARE));
  }

  /**
   * When the next live grant may come: at once while the live streams ask no more than the
   * budget per window; when they ask more (eleven streams polled every second on one token ask
   * 341), evenly over `share` grants a window. Served at once, they would spend the window in
   * its first 17 s and then every live poll would wait 13 s for it to roll over; spread over the
   * budget, each stream polls every 1.7 s or so, never stalled.
   */
  private liveSlot(now: number, share: number | undefined): { pacedAt: number; interval: number } {
    if (share === undefined) return { pacedAt: now, interval: 0 };
    const interval = this.windowMs() / share;
    return { pacedAt: this.lastLiveSlotAt + interval, interval };
  }

  /**
   * Whose turn it is, and when: the first live claim at its slot (at once unless the live
   * streams ask more than they may take); the first bulk claim when its slot comes first. While
   * bulk work runs (a first sync, a backfill, a sweep) beside live streams asking more than
   * {@link LIVE_RESERVE_CAP_SHARE} of the budget, each side is paced over its share: served at
   * once, live polls filled the window and then each waited seconds for a slot to free (six
   * streams polled every second, 4.5 s); over the whole budget, they left bulk work nothing, and
   * first syncs and sweeps never ran. Without bulk work, live polls are paced over the whole
   * budget once they ask more than it. A bulk claim the ledger refused waits for its slot to
   * free apart from the live claims: slept on as a turn, it held every live claim already
   * queued until then (up to a window: the soak's 9 to 24 s without a detection, while a
   * sweep's request waited after a restart), since only a live claim arriving woke it.
   */
  private nextTurn(now: number): Turn | undefined {
    const live = this.waiting.live[0];
    const firstBulk = this.waiting.bulk[0];
    const bulkRefused = firstBulk !== undefined && now < this.bulkRefusedUntil;
    const bulk = bulkRefused ? undefined : firstBulk;
    const limit = this.limit(now);
    // Worked out once per turn: it walks the live streams and drops those gone quiet.
    const demand = this.liveDemand(now);
    // Between two claims of a bulk loop its queue is empty for a moment: it still runs.
    const bulkRuns = firstBulk !== undefined || now - this.lastBulkSlotAt < BULK_RUNNING_MS;
    const liveShare = this.liveShare(now);
    const livePacedOver = bulkRuns ? liveShare : limit;
    const liveTurn: Turn | undefined = live && {
      waiter: live,
      // The server's own limit: after a 429 the lower pace spaces live claims, never stops them
      // (see PACE_AFTER_THROTTLE).
      capacity: this.limits.requests,
      ...this.liveSlot(now, demand > livePacedOver ? livePacedOver : undefined),
    };
    if (bulkRefused) {
      // Its turn comes back when its slot may free (the pump sleeps until the earlier of the two).
      const retry: Turn = {
        waiter: firstBulk,
        capacity: limit,
        pacedAt: this.bulkRefusedUntil,
        interval: 0,
      };
      return liveTurn && liveTurn.pacedAt <= retry.pacedAt ? liveTurn : retry;
    }
    if (!bulk || (liveTurn && liveTurn.pacedAt <= now)) return liveTurn;
    const reserve = this.liveReserve(now, demand);
    const capacity = this.bulkCapacity(now, reserve);
    const paceOver = demand > liveShare ? limit - liveShare : capacity;
    const bulkTurn: Turn = { waiter: bulk, capacity, ...this.bulkSlot(now, paceOver, reserve > 0) };
    return liveTurn && liveTurn.pacedAt < bulkTurn.pacedAt ? liveTurn : bulkTurn;
  }

  /**
   * Grants in the window bulk work may bring the total to: the limit minus the part of the
   * live reserve (`reserve`) the live streams have not used yet in this window.
   */
  private bulkCapacity(now: number, reserve: number): number {
    this.liveGrantTimes = liveGrants(this.liveGrantTimes, now, this.windowMs());
    const unusedReserve = Math.max(0, reserve - this.liveGrantTimes.length);
    return this.limit(now) - unusedReserve;
  }

  /**
   * When the next bulk grant may come, and the interval it keeps from the last one. While a
   * live stream polls on this token, bulk work keeps an even pace over the window, so the live
   * polls find a slot, and the process its CPU, at once. With no live stream: at once while the
   * window holds fewer than {@link BULK_BURST_SHARE} of the capacity, then the free slots spread
   * evenly from the last bulk slot until the oldest grant ages out.
   */
  private bulkSlot(
    now: number,
    capacity: number,
    livePolling: boolean,
  ): { pacedAt: number; interval: number } {
    if (livePolling) {
      const interval = this.windowMs() / Math.max(1, capacity);
      return { pacedAt: this.lastBulkSlotAt + interval, interval };
    }
    const counted = liveGrants(this.grants, now, this.windowMs());
    const free = capacity - counted.length;
    if (counted.length < Math.floor(capacity * BULK_BURST_SHARE) || free <= 0)
      return { pacedAt: now, interval: 0 };
    const from = Number.isFinite(this.lastBulkSlotAt) ? this.lastBulkSlotAt : now;
    const agesOutAt = (counted[0] ?? now) + this.windowMs();
    const interval = Math.max(0, agesOutAt - from) / free;
    return { pacedAt: from + interval, interval };
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const now = this.clock.now();
        if (now < this.pausedUntilMs) {
          await this.sleep(this.pausedUntilMs - now);
          continue;
        }
        if (this.lateGrants.length > 0) {
          await this.moveLate(now);
          continue;
        }
        const turn = this.nextTurn(now);
        if (!turn) break;
        const { waiter, capacity, pacedAt, interval } = turn;
        const bulk = waiter.claim.priority === 'bulk';
        if (pacedAt > now) {
          await this.sleep(pacedAt - now);
          continue;
        }
        const taken = await this.ledger.take(
          this.key,
          this.stamp,
          this.windowMs(),
          capacity,
          this.claimOf(bulk, now),
        );
        this.grants = taken.grants;
        // Another process was answered 429: its Retry-After holds here too.
        if (taken.pausedUntil !== undefined) this.pauseUntil(taken.pausedUntil);
        // A 429 came back while the ledger answered: nothing goes before its Retry-After (the
        // grant taken is spent, which only errs on the safe side).
        if (this.clock.now() < this.pausedUntilMs) continue;
        if (!taken.granted) {
          // Other processes' live reserves held back (bulk): their slots are not for us.
          const open = capacity - (taken.heldForOthers ?? 0);
          const freeAt = Math.max(now + 1, slotFreeAt(taken.grants, open, now, this.windowMs()));
          // A bulk claim waits for its slot as a turn of its own: live claims go on meanwhile.
          if (bulk) this.bulkRefusedUntil = freeAt;
          else await this.sleep(freeAt - now);
          continue;
        }
        // A grant late by less than an interval keeps its slot, so the next comes that much
        // sooner; later than that (a pause, the first grant), the schedule starts again at now.
        const slot = now - pacedAt < interval ? pacedAt : now;
        if (bulk) this.lastBulkSlotAt = slot;
        else {
          this.lastLiveSlotAt = slot;
          // Kept to one window: a process that only polls live never asks for bulk capacity.
          this.liveGrantTimes = liveGrants(this.liveGrantTimes, now, this.windowMs());
          this.liveGrantTimes.push(taken.at);
        }
        const queue = this.waiting[waiter.claim.priority];
        const index = queue.indexOf(waiter);
        // Aborted while the ledger answered: the grant is spent, the next waiter gets the next one.
        if (index < 0) continue;
        queue.splice(index, 1);
        waiter.resolve({ at: taken.at, priority: waiter.claim.priority });
      }
    } catch (error) {
      for (const waiter of [...this.lateGrants, ...this.waiting.live, ...this.waiting.bulk])
        waiter.reject(error);
      this.lateGrants.length = 0;
      this.waiting.live.length = 0;
      this.waiting.bulk.length = 0;
    } finally {
      this.pumping = false;
    }
  }

  /**
   * What the ledger learns of this take: live or bulk, and this process's live reserve until
   * its live streams count as gone, so bulk work of other processes (another poller of the
   * token, the admin API's connector proxy) leaves it free as this process's own bulk work does.
   */
  private claimOf(bulk: boolean, now: number): TakeClaim {
    const requests = this.liveReserve(now);
    let untilMs = now;
    for (const { intervalMs, seenAt } of this.liveStreams.values())
      untilMs = Math.max(untilMs, seenAt + 3 * intervalMs + this.windowMs());
    const bulkFloor = this.limit(now) - this.liveShare(now);
    return { taker: this.taker, live: !bulk, reserve: { requests, untilMs }, bulkFloor };
  }

  /** Sleeps, cut short when a live claim arrives. */
  private async sleep(ms: number): Promise<void> {
    this.wake = new AbortController();
    await this.clock.sleep(ms, this.wake.signal).catch(() => undefined);
    this.wake = undefined;
  }
}

/** Removes the first `value` of `values`, in place. */
function removeOne(values: number[], value: number): void {
  const index = values.indexOf(value);
  if (index >= 0) values.splice(index, 1);
}
