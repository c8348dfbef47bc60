import { liveGrants } from './sliding-log.ts';

/** What one attempt to take a grant found. */
export interface TakeResult {
  granted: boolean;
  /** The live grants after the attempt (with the new one when granted), oldest first. */
  grants: number[];
}

/**
 * Where the grants of one budget key are recorded, so that every process and every Lambda
 * invocation polling with the same AccessToken sees what the last window already spent, and a
 * restart does not begin with a fresh budget. Keys are digests of tokens, never tokens.
 */
export interface GrantLedger {
  /**
   * Atomically records a grant at `nowMs` if fewer than `capacity` grants lie within the last
   * `windowMs`. Two concurrent takers never both get the last slot.
   */
  take(key: string, nowMs: number, windowMs: number, capacity: number): Promise<TakeResult>;
  /** The live grants of `key` at `nowMs`, oldest first. */
  recent(key: string, nowMs: number, windowMs: number): Promise<number[]>;
}

/** A ledger in this process's memory (one process; tests). */
export class MemoryGrantLedger implements GrantLedger {
  private readonly logs = new Map<string, number[]>();

  async take(key: string, nowMs: number, windowMs: number, capacity: number): Promise<TakeResult> {
    const grants = liveGrants(this.logs.get(key) ?? [], nowMs, windowMs);
    const granted = grants.length < capacity;
    if (granted) grants.push(nowMs);
    this.logs.set(key, grants);
    return { granted, grants: [...grants] };
  }

  async recent(key: string, nowMs: number, windowMs: number): Promise<number[]> {
    return liveGrants(this.logs.get(key) ?? [], nowMs, windowMs);
  }
}
