import { describe, expect, it } from 'vitest';
import { VisibilityHeap } from '../../shared/local/disk-queue/visibility-heap.ts';

/** Pops every mark: [visibleAt, seq, row, version] in the heap's order. */
function drain(heap: VisibilityHeap): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  for (let at = heap.peekVisibleAt(); at !== undefined; at = heap.peekVisibleAt()) {
    out.push([at, heap.peekSeq(), heap.peekRow(), heap.peekVersion()]);
    heap.pop();
  }
  return out;
}

describe('VisibilityHeap', () => {
  it('hands marks out earliest first, ties in seq order, past the room it starts with', () => {
    const heap = new VisibilityHeap();
    // 5,000 marks in a scrambled order: more than its first 1,024 rows.
    const marks: Array<[number, number, number, number]> = [];
    for (let i = 0; i < 5_000; i++)
      marks.push([1_700_000_000_000 + ((i * 7919) % 613), (i * 104_729) % 5_000, i, i % 3]);
    for (const [at, seq, row, version] of marks) heap.push(at, seq, row, version);
    expect(heap.size).toBe(5_000);

    const expected = [...marks].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(drain(heap)).toEqual(expected);
    expect(heap.size).toBe(0);
    expect(heap.peekVisibleAt()).toBeUndefined();
  });

  it('starts afresh after clear', () => {
    const heap = new VisibilityHeap();
    heap.push(5, 1, 0, 0);
    heap.clear();
    heap.push(9, 2, 3, 4);
    expect(drain(heap)).toEqual([[9, 2, 3, 4]]);
  });
});
