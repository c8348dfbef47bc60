import { liveGrants } from './sliding-log.ts';

/** What one attempt to take a grant found. */
export interface TakeResult {
  granted: boolean;
  /** The live grants after the attempt (with the new one when granted), oldest first. */
  grants: number[];
  /** Refused for a server's pause of the token (a 429's Retry-After) lasting until then. */
  pausedUntil?: number;
}

/**
 * Where the grants of one budget key are recorded, so that every process and every Lambda
 * invocation polling with the same AccessToken sees what the last window already spent, and a
 * restart does not begin with a fresh budget. Keys are digests of tokens, never tokens.
 */
export interface GrantLedger {
  /**
   * Atomically records a grant at `nowMs` if fewer than `capacity` grants lie within the last
   * `windowMs` and no pause of the key lasts past `nowMs`. Two concurrent takers never both get
   * the last slot.
   */
  take(key: string, nowMs: number, windowMs: number, capacity: number): Promise<TakeResult>;
  /**
   * Records that the server paused the key's token until `untilMs` (a 429's Retry-After), so
   * every taker of the key waits for it, not only the one that was answered 429. Never
   * shortens a longer pause.
   */
  pause(key: string, untilMs: number): Promise<void>;
  /** The live grants of `key` at `nowMs`, oldest first. */
  recent(key: string, nowMs: number, windowMs: number): Promise<number[]>;
}

/** A ledger in this process's memory (one process; tests). */
export class MemoryGrantLedger implements GrantLedger {
  private readonly logs = new Map<string, number[]>();
  private readonly pauses = new Map<string, number>();

  async take(key: string, nowMs: number, windowMs: number, capacity: number): Promise<TakeResult> {
    const grants = liveGrants(this.logs.get(key) ?? [], nowMs, windowMs);
    const pausedUntil = this.pauses.get(key) ?? 0;
    if (pausedUntil > nowMs) return { granted: false, grants, pausedUntil };
    const granted = grants.length < capacity;
    if (granted) grants.push(nowMs);
    this.logs.set(key, grants);
    return { granted, grants: [...grants] };
  }

  async recent(key: string, nowMs: number, windowMs: number): Promise<number[]> {
    return liveGrants(this.logs.get(key) ?? [], nowMs, windowMs);
  }

  async pause(key: string, untilMs: number): Promise<void> {
    this.pauses.set(key, Math.max(this.pauses.get(key) ?? 0, untilMs));
  }
}
