import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../shared/clock.ts';
import { type DueEntry, DueIndex } from '../../shared/polling/due-index.ts';

const entry = (streamId: string, readyAt: number, order: number, dueAt = readyAt): DueEntry => ({
  streamId,
  dueAt,
  readyAt,
  order,
});

/** The oracle: every entry sorted as the heap must give them. */
const byReadyThenOrder = (entries: Iterable<DueEntry>) =>
  [...entries].sort((a, b) => a.readyAt - b.readyAt || a.order - b.order);

describe('DueIndex', () => {
  it('pops entries by ready time, then order, after random sets, updates and removals', () => {
    const random = seededRandom(7);
    const index = new DueIndex(
      Array.from({ length: 200 }, (_, i) => entry(`s${i}`, Math.floor(random() * 50), i)),
    );
    const oracle = new Map<string, DueEntry>();
    for (let i = 0; i < 200; i++)
      oracle.set(`s${i}`, index.ready(Infinity).find((e) => e.streamId === `s${i}`)!);
    for (let step = 0; step < 3_000; step++) {
      const id = `s${Math.floor(random() * 260)}`;
      const roll = random();
      if (roll < 0.3) {
        index.remove(id);
        oracle.delete(id);
      } else {
        const order = Number(id.slice(1));
        // Ready times often tie, so the order decides; some run (Infinity).
        const readyAt = roll < 0.4 ? Infinity : Math.floor(random() * 50);
        index.set(entry(id, readyAt, order, Math.floor(random() * 50)));
        oracle.set(id, entry(id, readyAt, order));
      }
      expect(index.size).toBe(oracle.size);
      expect(index.peek()?.streamId).toBe(byReadyThenOrder(oracle.values())[0]?.streamId);
    }
    const popped: string[] = [];
    for (let next = index.pop(); next; next = index.pop()) popped.push(next.streamId);
    expect(popped).toEqual(byReadyThenOrder(oracle.values()).map((e) => e.streamId));
    expect(index.size).toBe(0);
  });

  it('gives the entries ready by a time by due time, then order, and leaves them in', () => {
    const index = new DueIndex([
      entry('late', 30, 0),
      entry('held', 25, 1, 5),
      entry('b', 10, 3),
      entry('a', 10, 2),
      entry('first', 2, 4),
      entry('running', Infinity, 5, 0),
    ]);
    expect(index.ready(20).map((e) => e.streamId)).toEqual(['first', 'a', 'b']);
    // Released from its hold, it comes by its due time, before the others.
    index.set(entry('held', 5, 1));
    expect(index.ready(20).map((e) => e.streamId)).toEqual(['first', 'held', 'a', 'b']);
    index.remove('a');
    index.set(entry('late', 1, 0, 1));
    expect(index.ready(20).map((e) => e.streamId)).toEqual(['late', 'first', 'held', 'b']);
    expect(index.size).toBe(5);
    expect(index.has('a')).toBe(false);
  });

  it('reads a few entries to find the ready ones among many that are not', () => {
    const ready = (waiting: number) => {
      const index = new DueIndex([
        ...Array.from({ length: waiting }, (_, i) => entry(`wait-${i}`, 1_000 + i, i)),
        ...Array.from({ length: 5 }, (_, i) => entry(`due-${i}`, i, waiting + i)),
      ]);
      const before = index.examined;
      expect(index.ready(10)).toHaveLength(5);
      return index.examined - before;
    };
    // 5 ready, each with at most two children looked at: 15, with 1,000 or 100,000 waiting.
    expect(ready(1_000)).toBeLessThanOrEqual(15);
    expect(ready(100_000)).toBe(ready(1_000));
  });
  it('tells when the next entry not ready by a time becomes ready', () => {
    const index = new DueIndex([
      entry('ready', 2, 0),
      entry('later', 40, 1),
      entry('soon', 12, 2),
      entry('running', Infinity, 3),
    ]);
    expect(index.nextReadyAfter(5)).toBe(12);
    expect(index.nextReadyAfter(12)).toBe(40);
    // Only running ones left after 40: none becomes ready by itself.
    expect(index.nextReadyAfter(40)).toBeUndefined();
    expect(new DueIndex().nextReadyAfter(0)).toBeUndefined();
  });
});
