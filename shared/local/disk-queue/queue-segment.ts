import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { BridgeError } from '../../errors.ts';

const SEGMENT_FILE = /^(\d{10})\.log$/;

/** The numbers of the segment files in `names` (a queue directory's listing), in order. */
export function segmentNumbers(names: readonly string[]): number[] {
  return names
    .flatMap((name) => {
      const match = SEGMENT_FILE.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => a - b);
}

/**
 * One file of a queue's log, appended to and read at offsets with plain `write` and `pread`:
 * what the process reads stays in the kernel's page cache, not in its own resident memory (a
 * memory map, as LevelDB's table files use, counts every page read toward it). Writes go to
 * the kernel before they return, so a SIGKILL loses none; like LevelDB's default writes they
 * are not synced to the device. Counts the bytes of messages it holds that are not yet deleted,
 * so the log knows when a file can go (see LogQueueStore).
 */
export class QueueSegment {
  /** Messages of this file not yet deleted, and their records' bytes. */
  live = 0;
  liveBytes = 0;
  /** Whether a failed append may have left bytes past {@link size} (see {@link append}). */
  private cutShort = false;

  private constructor(
    readonly number: number,
    readonly path: string,
    private readonly fd: number,
    private length: number,
  ) {}

  /** Opens (or creates) segment `number` of the queue directory `dir`. */
  static open(dir: string, number: number): QueueSegment {
    const path = join(dir, `${String(number).padStart(10, '0')}.log`);
    const fd = openSync(path, 'a+');
    return new QueueSegment(number, path, fd, fstatSync(fd).size);
  }

  /** Bytes in the file. */
  get size(): number {
    return this.length;
  }

  /**
   * Appends `records` in one write; returns the offset they start at. A write that fails part
   * way (the disk full) is taken back before the error is thrown: a record left short there
   * would put every later append at another offset than the one noted for it, and a restart
   * would cut the log at it, dropping those appends. Should taking it back fail too, the next
   * append takes it back first.
   */
  append(records: Buffer): number {
    const at = this.length;
    if (this.cutShort) this.truncate(at);
    try {
      // A regular file takes a whole write; should one come back short, the rest follows it.
      for (let done = 0; done < records.length; )
        done += writeSync(this.fd, records, done, records.length - done);
    } catch (error) {
      this.cutShort = true;
      try {
        this.truncate(at);
      } catch {
        // Left to the next append (see above).
      }
      throw error;
    }
    this.length += records.length;
    return at;
  }

  /** Reads `length` bytes from `offset` into the start of `into`; returns them. */
  read(offset: number, length: number, into: Buffer): Buffer {
    for (let done = 0; done < length; ) {
      const read = readSync(this.fd, into, done, length - done, offset + done);
      if (read === 0)
        throw new BridgeError(`queue log ${this.path} ends before ${offset + length}`);
      done += read;
    }
    return into.subarray(0, length);
  }

  /** Waits until what was written to the file is on the device (`fdatasync`). */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  /** Cuts the file to `length` bytes (a record cut short at its end). */
  truncate(length: number): void {
    ftruncateSync(this.fd, length);
    this.length = length;
    this.cutShort = false;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Closes and deletes the file. */
  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}
