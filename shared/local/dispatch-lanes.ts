import { FNV_OFFSET, FNV_PRIME, fnv1a } from '../fnv1a.ts';
import type { DispatchLane } from '../publish/publisher.ts';

/**
 * The key that orders a subject's events, as a number: a 32-bit FNV-1a hash of the event's
 * source and subject (its id without a subject). The dispatcher runs one delivery per subject
 * at a time, in the order it is asked (see EndpointScheduler), so both lanes must agree on it.
 * A number and not the string: a backfill's bulk events each hold one key while they wait, and
 * a number as a map's key costs no string. Two subjects of one hash share a key: a live event
 * of one then takes the bulk lane while the other's bulk events wait, which the lanes allow
 * whenever they are unsure (one chance in about 40,000 per live event with 100,000 subjects
 * waiting).
 */
export type LaneKey = number;

/** The {@link LaneKey} of an event. */
export function laneKey(event: { source?: string; subject?: string; id: string }): LaneKey {
  let hash = fnv1a(FNV_OFFSET, event.source ?? '');
  hash = Math.imul(hash ^ 0x7c, FNV_PRIME); // '|' between the two
  return fnv1a(hash, event.subject ?? event.id);
}

/**
 * The message group a subject's events are sent to the bulk lane with: its lane key in decimal,
 * which the disk queue keeps as the number itself, so the subject's events can be found there
 * again and counted after a restart. Pure.
 * @example laneGroup(-12) === '-12'
 */
export function laneGroup(key: LaneKey): string {
  return String(key);
}

/**
 * Which dispatch lane each event of a local run takes. Events that bulk work found (a first
 * sync, a backfill) wait in a lane of their own, so the live polls' changes are not queued
 * behind a backlog of thousands. A subject's events keep their order across the lanes: while
 * any bulk event of a subject is queued and not yet handled, its live events take the bulk lane
 * too (a stream that turns live after its first sync cannot overtake its own `created` events).
 * After a restart with bulk events on disk, they are counted again from the queue (see
 * {@link DispatchLanes.afterStart}). Where that is not known for sure (bulk events of an
 * earlier version, a bulk send that failed half way), every event takes the bulk lane until it
 * has been seen empty. Pure state; the router and the bulk lane's consumer report to it.
 * @example const lane = lanes.laneOf(laneKey(event), 'live');
 */
export class DispatchLanes {
  /** Bulk events queued and not yet handled, per {@link laneKey}. */
  readonly #pending = new Map<LaneKey, number>();
  /**
   * Bulk sends under way, by token: the lane cannot be judged empty while one is. Each settles
   * `ended` as it ends (see {@link sendsSettled}).
   */
  readonly #sending = new Map<number, { ended: Promise<void>; end: () => void }>();
  /** Bulk sends ever started: a look at the lane is stale once another has started since. */
  #started = 0;
  #unsure: boolean;

  /** `bulkQueued`: whether the bulk lane held messages when the run started. */
  constructor(bulkQueued: boolean) {
    this.#unsure = bulkQueued;
  }

  /**
   * The lanes of a run whose bulk lane holds `backlog` at its start: counted by their subjects'
   * keys (the message group each bulk event is sent with), they are known for sure, and a live
   * change of another subject takes the live lane at once. Messages without a key (from an
   * earlier version) leave the lanes unsure until the bulk lane has drained, as before.
   */
  static afterStart(backlog: {
    keys: ReadonlyMap<LaneKey, number>;
    ungrouped: number;
  }): DispatchLanes {
    const lanes = new DispatchLanes(backlog.ungrouped > 0);
    for (const [key, count] of backlog.keys) lanes.#pending.set(key, count);
    return lanes;
  }

  /** The lane of an event of `key` that `requested` work found. */
  laneOf(key: LaneKey, requested: DispatchLane): DispatchLane {
    if (requested === 'bulk' || this.#unsure || this.#pending.has(key)) return 'bulk';
    return 'live';
  }

  /**
   * Notes bulk events about to be sent (before the send: a handler may finish first); returns
   * the send's token for {@link sent}.
   */
  sending(keys: readonly LaneKey[]): number {
    const token = ++this.#started;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#sending.set(token, { ended, end });
    for (const key of keys) this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    return token;
  }

  /**
   * Ends the bulk send `token` stands for. `refused` are the keys of events refused for good
   * (never queued); when the send failed as a whole, what it queued is not known, so the lanes
   * stay unsure until the bulk lane drains.
   */
  sent(token: number, outcome: { refused: readonly LaneKey[] } | 'failed'): void {
    this.#sending.get(token)?.end();
    this.#sending.delete(token);
    if (outcome === 'failed') this.#unsure = true;
    else for (const key of outcome.refused) this.handled(key);
  }

  /** Resolves once every bulk send under way now has ended (sends started later aside). */
  async sendsSettled(): Promise<void> {
    await Promise.all([...this.#sending.values()].map((send) => send.ended));
  }

  /** A bulk event of `key` was handled (fanned out and attempted) and left the lane. */
  handled(key: LaneKey): void {
    this.moved(key, 1);
  }

  /** `count` bulk events of `key` left the bulk lane for the live one (see SubjectExpediter). */
  moved(key: LaneKey, count: number): void {
    const pending = this.#pending.get(key);
    if (pending === undefined || count <= 0) return;
    if (pending <= count) this.#pending.delete(key);
    else this.#pending.set(key, pending - count);
  }

  /**
   * Whether which bulk events wait is known for sure: false after a restart with bulk events of
   * an earlier version on disk, or a bulk send that failed half way, until the bulk lane has been
   * seen empty.
   */
  get sure(): boolean {
    return !this.#unsure;
  }

  /**
   * When the lanes wait to see the bulk lane empty and no bulk send is under way: a token to
   * hand to {@link drained} with what a look at the lane then finds; otherwise undefined.
   */
  drainCheck(): number | undefined {
    return this.#unsure && this.#sending.size === 0 ? this.#started : undefined;
  }

  /**
   * The bulk lane was seen empty (nothing visible or in flight) by the look `token` stands for:
   * nothing is pending, unless a bulk send started since that look.
   */
  drained(token: number): void {
    if (token !== this.#started || this.#sending.size > 0) return;
    this.#pending.clear();
    this.#unsure = false;
  }

  /** Subjects with bulk events pending (for tests and diagnostics). */
  get pendingSubjects(): number {
    return this.#pending.size;
  }
}
