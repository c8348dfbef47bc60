import { liveGrants } from './sliding-log.ts';

/**
 * What one attempt to take a grant found: granted, with the time the grant was stamped with in
 * the ledger (`at`, the one to send by and to give back), or refused.
 */
export type TakeResult = ({ granted: true; at: number } | { granted: false }) & TakeFindings;

/** What a take found besides its answer. */
export interface TakeFindings {
  /** The live grants after the attempt (with the new one when granted), oldest first. */
  grants: number[];
  /** Refused for a server's pause of the token (a 429's Retry-After) lasting until then. */
  pausedUntil?: number;
  /**
   * Slots a bulk take was kept from: the live reserves other takers recorded and have not used
   * in the window (present when more than 0). A bulk take is refused at `capacity` minus this.
   */
  heldForOthers?: number;
}

/**
 * Who takes, for the live reserve across processes: a live take, and the taker's own live
 * reserve (the requests its live streams make per window, until they count as gone), which bulk
 * takes of other takers leave free.
 */
export interface TakeClaim {
  /** This taker (one budget in one process), stable while it runs. */
  taker: string;
  live: boolean;
  /** The taker's live reserve and until when it holds; absent or 0 requests: none. */
  reserve?: { requests: number; untilMs: number };
  /** The least capacity a bulk take keeps whatever others reserve (bulk work keeps a fifth). */
  bulkFloor?: number;
}

/** A taker's live reserve as a ledger keeps it, with the times of its live grants. */
export interface RecordedReserve {
  requests: number;
  untilMs: number;
  /** Its live grants within the window, oldest first. */
  live: number[];
}

/** What a ledger holds per key. */
export interface LedgerEntry {
  grants: number[];
  pausedUntil?: number;
  /** Live reserves by taker (a process whose live streams poll the token). */
  reserves?: Record<string, RecordedReserve>;
}

/** What a take or a move makes of a ledger entry: its answer, and the entry to store if any. */
export interface EntryDecision {
  result: TakeResult;
  entry?: LedgerEntry;
}

/**
 * One take against a key's entry, pure: the result, and the entry to store when granted.
 * Bulk takes leave free what other takers' live reserves have not used in the window, so live
 * polls in one process go before bulk work in another (design.md, Connector budget); each
 * taker's own reserve is its budget's business (it passes `capacity` without it).
 */
export function takeFromEntry(
  stored: LedgerEntry | undefined,
  nowMs: number,
  windowMs: number,
  capacity: number,
  claim?: TakeClaim,
): EntryDecision {
  const grants = liveGrants(stored?.grants ?? [], nowMs, windowMs);
  const pausedUntil = stored?.pausedUntil ?? 0;
  if (pausedUntil > nowMs) return { result: { granted: false, grants, pausedUntil } };
  const reserves: Record<string, RecordedReserve> = {};
  let heldForOthers = 0;
  for (const [taker, reserve] of Object.entries(stored?.reserves ?? {})) {
    if (reserve.untilMs <= nowMs) continue;
    const live = liveGrants(reserve.live, nowMs, windowMs);
    reserves[taker] = { ...reserve, live };
    if (taker !== claim?.taker) heldForOthers += Math.max(0, reserve.requests - live.length);
  }
  const floor = Math.min(capacity, claim?.bulkFloor ?? 0);
  const held = claim && !claim.live ? Math.min(heldForOthers, capacity - floor) : 0;
  const refusal = held > 0 ? { heldForOthers: held } : {};
  if (grants.length >= capacity - held) return { result: { granted: false, grants, ...refusal } };
  grants.push(nowMs);
  if (claim) {
    const own = reserves[claim.taker];
    if (claim.reserve && claim.reserve.requests > 0) {
      const live = own?.live ?? [];
      reserves[claim.taker] = {
        ...claim.reserve,
        live: claim.live ? [...live, nowMs] : live,
      };
    } else delete reserves[claim.taker];
  }
  const entry: LedgerEntry = {
    grants,
    ...(stored?.pausedUntil === undefined ? {} : { pausedUntil: stored.pausedUntil }),
    ...(Object.keys(reserves).length > 0 ? { reserves } : {}),
  };
  return { result: { granted: true, at: nowMs, grants: [...grants], ...refusal }, entry };
}

/** A grant given back: when it was taken, and by whom for a live request (its reserve's). */
export interface GivenBack {
  grantAt: number;
  /** The taker whose live grant it was (its reserve's live grants lose it too); absent: bulk. */
  liveTaker?: string;
}

/**
 * The entry without one grant taken at `grantAt` (a request that never reached the server), nor,
 * for a live one, that grant among its taker's reserve; undefined when it holds no such grant
 * (nothing to write). Pure.
 */
export function releaseFromEntry(
  stored: LedgerEntry | undefined,
  { grantAt, liveTaker }: GivenBack,
): LedgerEntry | undefined {
  const index = stored?.grants.indexOf(grantAt) ?? -1;
  if (!stored || index < 0) return undefined;
  const grants = stored.grants.filter((_, i) => i !== index);
  const reserve = liveTaker === undefined ? undefined : stored.reserves?.[liveTaker];
  const liveIndex = reserve?.live.indexOf(grantAt) ?? -1;
  const reserves =
    reserve && liveIndex >= 0 && liveTaker !== undefined
      ? {
          ...stored.reserves,
          [liveTaker]: { ...reserve, live: reserve.live.filter((_, i) => i !== liveIndex) },
        }
      : stored.reserves;
  return { ...stored, grants, ...(reserves ? { reserves } : {}) };
}

/**
 * One grant moved to `nowMs`, pure: the grant taken at `given.grantAt` leaves the entry (see
 * {@link releaseFromEntry}) and one is taken at `nowMs` against `capacity` in the same write
 * (see {@link takeFromEntry}), for a request that was not sent soon enough after its grant
 * (TokenBudget.restamp). While the old grant still counts in the window ending at `nowMs`, the
 * move leaves that window's count as it was (so no capacity, nor another taker's reserve, is
 * checked), later windows count the grant where it now is, and only a pause refuses it; a
 * refusal stores nothing and answers the grants as stored (the old grant stays counted, which
 * errs on the safe side). A grant the entry no longer counts makes it a plain take.
 */
export function restampInEntry(
  stored: LedgerEntry | undefined,
  given: GivenBack,
  nowMs: number,
  windowMs: number,
  capacity: number,
  claim?: TakeClaim,
): EntryDecision {
  const released = releaseFromEntry(stored, given);
  // Still counted at `nowMs`, the grant moves without a slot of its own: the count stays.
  const counted = released !== undefined && given.grantAt > nowMs - windowMs;
  const moved = takeFromEntry(
    released ?? stored,
    nowMs,
    windowMs,
    counted ? Number.POSITIVE_INFINITY : capacity,
    claim,
  );
  if (moved.entry) return moved;
  return { result: { ...moved.result, grants: liveGrants(stored?.grants ?? [], nowMs, windowMs) } };
}

/**
 * Where the grants of one budget key are recorded, so that every process and every Lambda
 * invocation polling with the same AccessToken sees what the last window already spent, and a
 * restart does not begin with a fresh budget. Keys are digests of tokens, never tokens.
 */
export interface GrantLedger {
  /**
   * Atomically records a grant at the time `now` answers if fewer than `capacity` grants lie
   * within the last `windowMs` and no pause of the key lasts past it. Two concurrent takers never
   * both get the last slot. With a `claim`, records the taker's live reserve, and a bulk take
   * also leaves free what other takers' reserves have not used (see {@link takeFromEntry}).
   * `now` is read at each attempt (a ledger that retries a lost write race reads it again), so a
   * grant is stamped with the time of the write that recorded it, returned as `at`.
   */
  take(
    key: string,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult>;
  /**
   * Atomically moves the grant of `key` taken at `given.grantAt` to the time `now` answers, as
   * a take would record it (see {@link restampInEntry}; `now` read at each attempt, the time
   * written returned as `at`): one write. Refused as a take is (the window full without the old
   * grant, a pause), then nothing changes.
   */
  restamp(
    key: string,
    given: GivenBack,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult>;
  /**
   * Records that the server paused the key's token until `untilMs` (a 429's Retry-After), so
   * every taker of the key waits for it, not only the one that was answered 429. Never
   * shortens a longer pause.
   */
  pause(key: string, untilMs: number): Promise<void>;
  /**
   * Removes one grant of `key` taken at `given.grantAt` (see {@link releaseFromEntry}): its
   * request never reached the server, which counted nothing. Nothing when there is none.
   */
  release(key: string, given: GivenBack): Promise<void>;
  /** The live grants of `key` at `nowMs`, oldest first. */
  recent(key: string, nowMs: number, windowMs: number): Promise<number[]>;
}

/** A ledger in this process's memory (one process; tests). */
export class MemoryGrantLedger implements GrantLedger {
  private readonly entries = new Map<string, LedgerEntry>();

  async take(
    key: string,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult> {
    return this.write(key, (stored) => takeFromEntry(stored, now(), windowMs, capacity, claim));
  }

  async restamp(
    key: string,
    given: GivenBack,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult> {
    return this.write(key, (stored) =>
      restampInEntry(stored, given, now(), windowMs, capacity, claim),
    );
  }

  /** Stores what `decide` makes of the key's entry, when it makes one; answers its result. */
  private write(
    key: string,
    decide: (stored: LedgerEntry | undefined) => EntryDecision,
  ): TakeResult {
    const { result, entry } = decide(this.entries.get(key));
    if (entry) this.entries.set(key, entry);
    return result;
  }

  async recent(key: string, nowMs: number, windowMs: number): Promise<number[]> {
    return liveGrants(this.entries.get(key)?.grants ?? [], nowMs, windowMs);
  }

  async release(key: string, given: GivenBack): Promise<void> {
    const entry = releaseFromEntry(this.entries.get(key), given);
    if (entry) this.entries.set(key, entry);
  }

  async pause(key: string, untilMs: number): Promise<void> {
    const stored = this.entries.get(key) ?? { grants: [] };
    this.entries.set(key, {
      ...stored,
      pausedUntil: Math.max(stored.pausedUntil ?? 0, untilMs),
    });
  }
}
