/** A message's place in the order of visibility: when it becomes visible, then its seq. */
export interface VisibilityMark {
  visibleAt: number;
  seq: number;
  /** Which of the message's marks this is: a later change of its visibility makes it stale. */
  version: number;
}

const before = (a: VisibilityMark, b: VisibilityMark) =>
  a.visibleAt < b.visibleAt || (a.visibleAt === b.visibleAt && a.seq < b.seq);

/**
 * A binary min-heap of visibility marks, earliest first (ties by seq: the order sent). Marks
 * are not removed when a message is deleted or its visibility changes; the reader skips the
 * stale ones it meets (see LogQueueStore) and rebuilds the heap when they outnumber the rest.
 */
export class VisibilityHeap {
  private marks: VisibilityMark[] = [];

  get size(): number {
    return this.marks.length;
  }

  push(mark: VisibilityMark): void {
    const marks = this.marks;
    marks.push(mark);
    let index = marks.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(mark, marks[parent]!)) break;
      marks[index] = marks[parent]!;
      index = parent;
    }
    marks[index] = mark;
  }

  /** The earliest mark, left in place. */
  peek(): VisibilityMark | undefined {
    return this.marks[0];
  }

  /** Removes and returns the earliest mark. */
  pop(): VisibilityMark | undefined {
    const marks = this.marks;
    const top = marks[0];
    const last = marks.pop();
    if (top === undefined || last === undefined || marks.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= marks.length) break;
      const right = left + 1;
      const child = right < marks.length && before(marks[right]!, marks[left]!) ? right : left;
      if (!before(marks[child]!, last)) break;
      marks[index] = marks[child]!;
      index = child;
    }
    marks[index] = last;
    return top;
  }

  /** Replaces every mark by `marks` (a rebuild without the stale ones). */
  reset(marks: Iterable<VisibilityMark>): void {
    this.marks = [];
    for (const mark of marks) this.push(mark);
  }
}
