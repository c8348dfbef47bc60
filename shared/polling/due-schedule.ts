import type { StreamState } from '../state/state-store.ts';
import { type DueEntry, DueIndex } from './due-index.ts';
import type { StreamDefinition } from './poll-context.ts';
import { streamDueAt } from './schedule.ts';

/** What a {@link DueSchedule} asks of the loop it plans for. */
export interface DueScheduleSource {
  /** The stream's state as the loop knows it (undefined: never polled, due at once). */
  stateOf(streamId: string): StreamState | undefined;
  /**
   * When the stream may start, given when it is due: later while the loop holds it back,
   * `Infinity` while it runs.
   */
  readyAt(streamId: string, dueAt: number): number;
}

/**
 * The poll loop's due streams, kept in a {@link DueIndex} as states change rather than found by
 * walking every stream on every tick: {@link due} gives what `dueStreams` gives for the same
 * definitions and states (by due time, then their order in the list), less the streams not
 * ready. The loop calls {@link update} for each stream whose state, hold or run changed,
 * {@link invalidate} when it replaced every state, and {@link sync} on every tick.
 */
export class DueSchedule {
  private index = new DueIndex();
  private indexed: readonly StreamDefinition[] | undefined;
  private places = new Map<string, { definition: StreamDefinition; order: number }>();
  private stale = true;

  constructor(private readonly source: DueScheduleSource) {}

  /** Entries the index has read since the last rebuild (see {@link DueIndex.examined}). */
  get examined(): number {
    return this.index.examined;
  }

  /**
   * Follows the tick's definitions: rebuilt in O(n) when the list changed (the registry gives
   * the same array until a connection comes or goes) or after {@link invalidate}. Returns the
   * streams new to the list since the last call (none on the first).
   */
  sync(definitions: readonly StreamDefinition[]): StreamDefinition[] {
    if (definitions === this.indexed && !this.stale) return [];
    const before = this.indexed === undefined ? undefined : this.places;
    this.places = new Map(
      definitions.map((definition, order) => [definition.streamId, { definition, order }]),
    );
    this.index = new DueIndex(
      definitions.map((definition, order) => this.entryOf(definition, order)),
    );
    this.indexed = definitions;
    this.stale = false;
    return before ? definitions.filter((definition) => !before.has(definition.streamId)) : [];
  }

  /** Every state changed (a full read): the next {@link sync} rebuilds the index. */
  invalidate(): void {
    this.stale = true;
  }

  /** The stream's state, hold or run changed: its place in the index follows. */
  update(streamId: string): void {
    const place = this.places.get(streamId);
    if (place && !this.stale) this.index.set(this.entryOf(place.definition, place.order));
  }

  /** The streams ready by `now`: by due time, then their order in the definitions. */
  due(now: number): StreamDefinition[] {
    return this.index.ready(now).map((entry) => this.places.get(entry.streamId)!.definition);
  }

  /**
   * When the next stream not ready by `now` becomes ready (undefined: none will without a
   * change the loop is told of, or the index waits for its next {@link sync}).
   */
  nextReadyAfter(now: number): number | undefined {
    return this.stale ? undefined : this.index.nextReadyAfter(now);
  }

  /** When the stream may next be taken, as indexed (undefined: not in the index, or stale). */
  readyAtOf(streamId: string): number | undefined {
    return this.stale ? undefined : this.index.get(streamId)?.readyAt;
  }

  private entryOf(definition: StreamDefinition, order: number): DueEntry {
    const { streamId } = definition;
    const state = this.source.stateOf(streamId);
    const dueAt = state ? streamDueAt(definition, state) : 0;
    return { streamId, dueAt, readyAt: this.source.readyAt(streamId, dueAt), order };
  }
}
