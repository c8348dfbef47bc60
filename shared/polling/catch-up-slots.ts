import type { StreamDefinition } from './poll-context.ts';

/**
 * Slots of `concurrency` that streams still catching up may take: a quarter, at least one, and
 * never all of them when there are two or more, so live polls always find a free slot and a
 * thousand first syncs never hold more than a quarter of the slots' pages in memory.
 * @example catchUpSlots(128) === 32
 */
export function catchUpSlots(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

/**
 * Slots of `concurrency` kept for streams catching up while any wait: an eighth of the catch-up
 * share, at least one. Live streams go first, but when their polls alone want every slot (more
 * due each minute than the machine polls), first syncs would otherwise never start: a hotel
 * onboarded then would never be read. These keep a few catching up, so each gets its turn.
 * @example reservedCatchUpSlots(128) === 4
 */
export function reservedCatchUpSlots(concurrency: number): number {
  return Math.max(1, Math.floor(catchUpSlots(concurrency) / 8));
}

/** A stream that may take a catch-up slot: its id and its connection's. */
export type CatchUpCandidate = Pick<StreamDefinition, 'streamId' | 'connectionId'>;

/** What {@link CatchUpSlots.startInTurn} needs of the loop that starts the streams. */
export interface CatchUpStarter<D extends CatchUpCandidate> {
  /** Whether the loop has no slot free at all (or is stopping). */
  full(): boolean;
  /** Whether the stream runs already. */
  isRunning(streamId: string): boolean;
  /**
   * Starts the stream in a catch-up slot: the loop calls {@link CatchUpSlots.take} for it (not
   * when the stream cannot start: its connection left).
   */
  start(definition: D): void;
}

/**
 * The catch-up slots of a loop of `concurrency` slots: which running streams hold one, how many
 * each connection holds, and whose turn it is to take the next. No I/O: the loop starts the
 * streams and tells of each taken and freed slot.
 */
export class CatchUpSlots {
  /** Streams catching up that may run at once ({@link catchUpSlots}). */
  readonly limit: number;
  /** Slots live streams leave free while streams catching up wait ({@link reservedCatchUpSlots}). */
  private readonly reserve: number;
  /** The running streams that hold a catch-up slot. */
  private readonly holders = new Set<string>();
  /** How many of them each connection has: catch-up slots go round the connections. */
  private readonly perConnection = new Map<string, number>();

  constructor(concurrency: number) {
    this.limit = catchUpSlots(concurrency);
    this.reserve = concurrency > 1 ? reservedCatchUpSlots(concurrency) : 0;
  }

  /** Whether a catch-up slot is free. */
  hasFree(): boolean {
    return this.holders.size < this.limit;
  }

  /**
   * Slots live streams leave free now: while streams catching up wait (`waiting`), the reserve
   * less those running; none otherwise.
   */
  keptFree(waiting: boolean): number {
    return waiting ? Math.max(0, this.reserve - this.holders.size) : 0;
  }

  /** The stream started in a catch-up slot. */
  take(definition: CatchUpCandidate): void {
    this.holders.add(definition.streamId);
    this.count(definition.connectionId, 1);
  }

  /** The stream's run ended: its catch-up slot, if it held one, is free. */
  free(definition: CatchUpCandidate): void {
    if (this.holders.delete(definition.streamId)) this.count(definition.connectionId, -1);
  }

  /**
   * Starts waiting streams while catch-up slots and the loop's slots are free, round the
   * connections: one per connection first (those already holding one wait), then a second, and
   * so on, in `waiting`'s order within a round. Streams already running are dropped, as are those
   * that could not start. Returns the streams left waiting, in their order.
   * @example
   * // a1, a2 of connection a, b1 of b, 2 catch-up slots free: a1 and b1 start, a2 waits.
   * slots.startInTurn([a1, a2, b1], loop); // returns [a2]
   */
  startInTurn<D extends CatchUpCandidate>(waiting: readonly D[], loop: CatchUpStarter<D>): D[] {
    let left = [...waiting];
    for (let perConnection = 1; left.length > 0; perConnection++) {
      const passed: D[] = [];
      for (const [index, definition] of left.entries()) {
        if (loop.full() || !this.hasFree()) return [...passed, ...left.slice(index)];
        if (loop.isRunning(definition.streamId)) continue;
        if ((this.perConnection.get(definition.connectionId) ?? 0) < perConnection)
          loop.start(definition);
        else passed.push(definition);
      }
      left = passed;
    }
    return left;
  }

  private count(connectionId: string, by: 1 | -1): void {
    const count = (this.perConnection.get(connectionId) ?? 0) + by;
    if (count > 0) this.perConnection.set(connectionId, count);
    else this.perConnection.delete(connectionId);
  }
}
