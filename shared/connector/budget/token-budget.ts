import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { pacedLimit, slotKept } from './budget-pacing.ts';
import { nextTurn, type Turn } from './budget-turns.ts';
import type {
  BudgetClaim,
  BudgetGrant,
  BudgetLimits,
  BudgetPriority,
  BudgetView,
} from './budget-types.ts';
import { queueClaim, type Waiter } from './claim-queue.ts';
import type { GivenBack, GrantLedger, TakeClaim } from './grant-ledger.ts';
import { grantIsLate } from './late-grant.ts';
import { bulkCapacityOf, LiveStreams, liveShareOf } from './live-reserve.ts';
import { liveGrants, removeGrant, slotFreeAt } from './sliding-log.ts';
import { ThrottlePause } from './throttle-pause.ts';

/** A grant whose request was not sent in time, to be moved to now ({@link TokenBudget.restamp}). */
interface LateGrant extends Waiter {
  grant: BudgetGrant;
  signal: AbortSignal | undefined;
}

/**
 * The budget of one AccessToken in one process: a priority scheduler in front of a
 * {@link GrantLedger}. Live claims are served before bulk ones at every free slot (spread evenly
 * over the window when the live streams alone ask more than the budget, and over four fifths of
 * it while bulk work runs and they ask more than that); bulk work may use the budget up to the
 * limit minus a live reserve (the requests the live streams make per window at their intervals,
 * at most four fifths of the budget: LIVE_RESERVE_CAP_SHARE). While live streams poll, bulk work
 * is paced evenly over the window, so it never takes a burst of slots (or of the process's CPU)
 * a live poll needs a moment later. While none does, bulk work may spend half its capacity at
 * once, then the slots left are spread evenly until the window's oldest grant ages out: a first
 * sync smaller than a window is not stretched over it, a long one runs at the full rate, and a
 * live poll that starts meanwhile still finds a slot soon. A 429 pauses every claim until its
 * Retry-After, then lowers the pace for a while (PACE_AFTER_THROTTLE): bulk work waits,
 * live polls go on spaced.
 */
export class TokenBudget {
  private readonly waiting: Record<BudgetPriority, Waiter[]> = { live: [], bulk: [] };
  /** Moved before any claim is served: the pump is this budget's one writer of the ledger. */
  private readonly lateGrants: LateGrant[] = [];
  private readonly liveStreams = new LiveStreams();
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
  private readonly throttle: ThrottlePause;
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
  ) {
    this.throttle = new ThrottlePause(limits.windowMs);
  }

  /** Waits for a grant. Rejects only when `signal` aborts (or the ledger fails). */
  acquire(claim: BudgetClaim, signal?: AbortSignal): Promise<BudgetGrant> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.liveStreams.note(claim, this.clock.now());
    const granted = queueClaim(this.waiting[claim.priority], claim, signal);
    // A live claim must not sleep behind a bulk claim's wait for its paced slot.
    if (claim.priority === 'live') this.wake?.abort();
    void this.pump();
    return granted;
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
    removeGrant(this.grants, grant.at);
    if (live) removeGrant(this.liveGrantTimes, grant.at);
    // A slot came free: a bulk claim refused before may take it.
    this.bulkRefusedUntil = Number.NEGATIVE_INFINITY;
    await this.ledger.release(this.key, this.givenBack(grant)).catch(() => undefined);
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
      this.givenBack(grant),
      this.stamp,
      this.windowMs(),
      capacity,
      this.claimOf(!live, now),
    );
    this.grants = taken.grants;
    if (taken.pausedUntil !== undefined) this.throttle.pauseUntil(taken.pausedUntil);
    if (taken.granted) {
      if (live) {
        removeGrant(this.liveGrantTimes, grant.at);
        this.liveGrantTimes.push(taken.at);
      }
      late.grant = { at: taken.at, priority: grant.priority };
    }
    // Refused for a 429's pause, or answered during one: moved again once it ends.
    if (taken.pausedUntil !== undefined || this.throttle.pausedUntil(this.clock.now()) !== null)
      return;
    this.lateGrants.shift();
    if (taken.granted) return late.resolve(late.grant);
    // Refused: the old grant left the window, which is full. Claimed again, served by this pump.
    if (live) removeGrant(this.liveGrantTimes, grant.at);
    this.acquire(claim, late.signal).then(late.resolve, late.reject);
  }

  /**
   * The server answered 429: nothing is sent before `untilMs`, and the pace stays lower for a
   * while. The pause is also written to the ledger, so every process taking grants of this
   * token waits for it (a failed write leaves the pause to this process). Resolves once the
   * ledger has it (never rejects): a caller about to end (a Lambda invocation) awaits it.
   */
  throttled(untilMs: number): Promise<void> {
    this.throttle.pauseUntil(untilMs);
    return this.ledger.pause(this.key, untilMs).catch(() => undefined);
  }

  /** The figures `streams list` shows. */
  view(): BudgetView {
    const now = this.clock.now();
    return {
      requestsInWindow: liveGrants(this.grants, now, this.limits.windowMs).length,
      limit: this.limit(now),
      liveReserve: this.liveReserve(now),
      queued: { live: this.waiting.live.length, bulk: this.waiting.bulk.length },
      pausedUntil: this.throttle.pausedUntil(now),
      slowedUntil: this.throttle.slowedUntil(now),
    };
  }

  /** How the ledger names `grant` to give it back or move it: its time, and a live one's reserve. */
  private givenBack(grant: BudgetGrant): GivenBack {
    return { grantAt: grant.at, ...(grant.priority === 'live' ? { liveTaker: this.taker } : {}) };
  }

  private windowMs(): number {
    return this.limits.windowMs + this.limits.marginMs;
  }

  /** Grants a window may hold now: lower for a while after a 429 ({@link pacedLimit}). */
  private limit(now: number): number {
    return pacedLimit(this.limits.requests, this.throttle.slowedUntil(now) !== null);
  }

  /** Requests the live streams make per window at their intervals. */
  private liveDemand(now: number): number {
    return this.liveStreams.demand(now, this.windowMs());
  }

  /** The live streams' demand, capped at LIVE_RESERVE_CAP_SHARE of the budget. */
  private liveReserve(now: number, demand = this.liveDemand(now)): number {
    return Math.min(demand, this.liveShare(now));
  }

  /** The most live polls may take of a window while bulk work runs: the reserve's cap. */
  private liveShare(now: number): number {
    return liveShareOf(this.limit(now));
  }

  /**
   * Grants in the window bulk work may bring the total to: the limit minus the part of the
   * live reserve (`reserve`) the live streams have not used yet in this window.
   */
  private bulkCapacity(now: number, reserve: number): number {
    this.liveGrantTimes = liveGrants(this.liveGrantTimes, now, this.windowMs());
    return bulkCapacityOf(this.limit(now), reserve, this.liveGrantTimes.length);
  }

  /** The next claim to serve at `now`, and when (see {@link nextTurn}). */
  private turnAt(now: number): Turn | undefined {
    return nextTurn({
      now,
      firstLive: this.waiting.live[0],
      firstBulk: this.waiting.bulk[0],
      bulkRefusedUntil: this.bulkRefusedUntil,
      requests: this.limits.requests,
      limit: this.limit(now),
      // Worked out once per turn: it walks the live streams and drops those gone quiet.
      liveDemand: this.liveDemand(now),
      liveShare: this.liveShare(now),
      lastLiveSlotAt: this.lastLiveSlotAt,
      lastBulkSlotAt: this.lastBulkSlotAt,
      grants: this.grants,
      windowMs: this.windowMs(),
      bulkCapacity: (reserve) => this.bulkCapacity(now, reserve),
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const now = this.clock.now();
        const pausedUntil = this.throttle.pausedUntil(now);
        if (pausedUntil !== null) {
          await this.sleep(pausedUntil - now);
          continue;
        }
        if (this.lateGrants.length > 0) {
          await this.moveLate(now);
          continue;
        }
        const turn = this.turnAt(now);
        if (!turn) break;
        const { waiter, capacity, pacedAt } = turn;
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
        if (taken.pausedUntil !== undefined) this.throttle.pauseUntil(taken.pausedUntil);
        // A 429 came back while the ledger answered: nothing goes before its Retry-After (the
        // grant taken is spent, which only errs on the safe side).
        if (this.throttle.pausedUntil(this.clock.now()) !== null) continue;
        if (!taken.granted) {
          // Other processes' live reserves held back (bulk): their slots are not for us.
          const open = capacity - (taken.heldForOthers ?? 0);
          const freeAt = Math.max(now + 1, slotFreeAt(taken.grants, open, now, this.windowMs()));
          // A bulk claim waits for its slot as a turn of its own: live claims go on meanwhile.
          if (bulk) this.bulkRefusedUntil = freeAt;
          else await this.sleep(freeAt - now);
          continue;
        }
        const slot = slotKept(now, turn);
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
    const untilMs = this.liveStreams.reservedUntil(now, this.windowMs());
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
