import type { QueueSegment } from './queue-segment.ts';

/** Records of one read taken together when this close in a file (one `pread` for a batch). */
const READ_GAP_BYTES = 64 * 1024;
/** Bytes read at most in one go, into the reader's buffer (it grows for a larger record). */
const READ_BYTES = 1024 * 1024;

/** Where a record lies in a queue's log. */
export interface RecordPlace {
  segment: QueueSegment;
  offset: number;
  length: number;
}

/**
 * Reads records back from a queue's log files into one buffer it reuses: a receive of a few
 * hundred messages costs a few `pread`s and no large short-lived buffer (memory outside V8's
 * heap, which its collector notices late).
 */
export class SegmentReader {
  private buffer = Buffer.allocUnsafeSlow(READ_BYTES);

  /**
   * Hands each record of `places` to `visit` with its index in `places`; neighbours in a file
   * are read in one go, into the buffer reused for the next read (a record is valid only
   * during its visit).
   */
  readEach<Place extends RecordPlace>(
    places: readonly Place[],
    visit: (place: Place, record: Buffer, index: number) => void,
  ): void {
    const order = places
      .map((place, index) => ({ place, index }))
      .sort(
        (a, b) =>
          a.place.segment.number - b.place.segment.number || a.place.offset - b.place.offset,
      );
    for (let start = 0; start < order.length; ) {
      const { segment, offset: from, length } = order[start]!.place;
      if (length > this.buffer.length) this.buffer = Buffer.allocUnsafeSlow(length);
      let end = start + 1;
      let to = from + length;
      while (end < order.length) {
        const next = order[end]!.place;
        const reach = Math.max(to, next.offset + next.length);
        if (next.segment !== segment || next.offset > to + READ_GAP_BYTES) break;
        if (reach - from > this.buffer.length) break;
        to = reach;
        end++;
      }
      const span = segment.read(from, to - from, this.buffer);
      for (const { place, index } of order.slice(start, end)) {
        const at = place.offset - from;
        visit(place, span.subarray(at, at + place.length), index);
      }
      start = end;
    }
  }
}
