import { z } from 'zod';

/**
 * The records of a queue's log (see LogQueueStore). Each is a 4-byte little-endian length of
 * what follows, then one byte of kind:
 * - `S`, a message sent: a 4-byte length of its header (JSON: {@link SentHeader}), the header,
 *   then the body's UTF-8 bytes;
 * - `D`, messages deleted: a JSON array of their sequence numbers;
 * - `R`, messages received: JSON `{ at, seqs }` (their receive counts survive a restart).
 */
export const SentHeaderSchema = z.object({
  /** The message's place in its queue's log, unique in the queue. */
  seq: z.number().int().nonnegative(),
  id: z.string(),
  /**
   * The body's MD5 (hex), stored by earlier versions; absent since, computed from the body when
   * read (see withLazyMd5).
   */
  md5: z.string().optional(),
  sentAt: z.number(),
  /** When the message first became visible: sent plus its delay. */
  visibleAt: z.number(),
  /**
   * Counted as undelivered backlog even while delayed (a delivery deferred for its place in a
   * slow endpoint's line; see QueueCounts.delayedInLine). Absent in logs of earlier versions.
   */
  inLine: z.literal(true).optional(),
  /**
   * The message's group (SQS `MessageGroupId`, which standard queues take for fairness): the
   * local run's bulk lane sends each event with its subject's, so a subject's waiting events can
   * be moved ahead together (see LogQueueStore.takeGroup). Absent in logs of earlier versions.
   */
  group: z.string().optional(),
});
export type SentHeader = z.infer<typeof SentHeaderSchema>;

const SeqsSchema = z.array(z.number().int().nonnegative());
const ReceivedSchema = z.object({ at: z.number(), seqs: SeqsSchema });

const SENT = 0x53; // 'S'
const DELETED = 0x44; // 'D'
const RECEIVED = 0x52; // 'R'
/** Length prefix and kind byte. */
const RECORD_HEAD_BYTES = 5;

/** Bytes a record writer starts with (it grows for a larger write). */
const WRITER_BYTES = 256 * 1024;

/**
 * Encodes records into one buffer it keeps and reuses: a write of many records costs no
 * allocation per record, and no large short-lived buffer (memory outside V8's heap, which its
 * collector only notices late) per write. What {@link take} returns is valid until the next
 * record is added.
 */
export class RecordWriter {
  private buffer = Buffer.allocUnsafeSlow(WRITER_BYTES);
  private length = 0;

  /** Adds a sent message's record; returns its offset among the records added and its length. */
  sent(header: SentHeader, body: string): { at: number; length: number } {
    const json = JSON.stringify(header);
    // UTF-8 needs at most 3 bytes for each UTF-16 unit of a string.
    const at = this.reserve(RECORD_HEAD_BYTES + 4 + 3 * (json.length + body.length));
    const buffer = this.buffer;
    const headerBytes = buffer.write(json, at + RECORD_HEAD_BYTES + 4);
    const bodyBytes = buffer.write(body, at + RECORD_HEAD_BYTES + 4 + headerBytes);
    buffer.writeUInt32LE(headerBytes, at + RECORD_HEAD_BYTES);
    return { at, length: this.close(at, SENT, 4 + headerBytes + bodyBytes) };
  }

  /** Adds a record of messages deleted, by sequence number. */
  deleted(seqs: readonly number[]): void {
    this.json(DELETED, seqs);
  }

  /** Adds a record of messages received at `at`, by sequence number. */
  received(at: number, seqs: readonly number[]): void {
    this.json(RECEIVED, { at, seqs });
  }

  /** Adds a record read from a log, unchanged. */
  copy(record: Buffer): void {
    const at = this.reserve(record.length);
    record.copy(this.buffer, at);
    this.length = at + record.length;
  }

  /** The records added since the last take, and starts afresh. */
  take(): Buffer {
    const records = this.buffer.subarray(0, this.length);
    this.length = 0;
    return records;
  }

  private json(kind: number, value: unknown): void {
    const json = JSON.stringify(value);
    const at = this.reserve(RECORD_HEAD_BYTES + 3 * json.length);
    this.close(at, kind, this.buffer.write(json, at + RECORD_HEAD_BYTES));
  }

  /** Makes room for `bytes` more; returns where they start. */
  private reserve(bytes: number): number {
    if (this.length + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.buffer.length, this.length + bytes));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    return this.length;
  }

  /** Writes the head of the record at `at` whose content is `contentBytes` long; returns its length. */
  private close(at: number, kind: number, contentBytes: number): number {
    const length = RECORD_HEAD_BYTES + contentBytes;
    this.buffer.writeUInt32LE(length - 4, at);
    this.buffer[at + 4] = kind;
    this.length = at + length;
    return length;
  }
}

/** Where a sent record's body starts, from its header's length alone (no header decoded). */
export function sentBodyStart(record: Buffer): number {
  return RECORD_HEAD_BYTES + 4 + record.readUInt32LE(RECORD_HEAD_BYTES);
}

/** A sent record's header, and where its body starts. */
function decodeHeader(record: Buffer): { header: SentHeader; bodyStart: number } {
  const bodyStart = sentBodyStart(record);
  const json = record.toString('utf8', RECORD_HEAD_BYTES + 4, bodyStart);
  return { header: SentHeaderSchema.parse(JSON.parse(json)), bodyStart };
}

/** A sent record read back: its header and body. */
export function decodeSent(record: Buffer): { header: SentHeader; body: string } {
  const { header, bodyStart } = decodeHeader(record);
  return { header, body: record.toString('utf8', bodyStart) };
}

/** One record of a log read back in order (see {@link readRecords}). */
export type LogRecord =
  | { kind: 'sent'; header: SentHeader; offset: number; length: number }
  | { kind: 'deleted'; seqs: number[] }
  | { kind: 'received'; at: number; seqs: number[] };

/**
 * The records of `log` in order, and where the last whole one ends. A record cut short (the
 * process stopped in the middle of a write) or unreadable ends the log there: what follows is
 * not trusted, and the caller truncates it before appending.
 */
export function readRecords(log: Buffer): { records: LogRecord[]; end: number } {
  const records: LogRecord[] = [];
  let offset = 0;
  while (offset + RECORD_HEAD_BYTES <= log.length) {
    const length = log.readUInt32LE(offset) + 4;
    if (length < RECORD_HEAD_BYTES || offset + length > log.length) break;
    const record = parseRecord(log.subarray(offset, offset + length), offset);
    if (record === undefined) break;
    records.push(record);
    offset += length;
  }
  return { records, end: offset };
}

function parseRecord(record: Buffer, offset: number): LogRecord | undefined {
  try {
    if (record[4] === SENT)
      return { kind: 'sent', header: decodeHeader(record).header, offset, length: record.length };
    const json = () => JSON.parse(record.toString('utf8', RECORD_HEAD_BYTES));
    if (record[4] === DELETED) return { kind: 'deleted', seqs: SeqsSchema.parse(json()) };
    if (record[4] === RECEIVED) return { kind: 'received', ...ReceivedSchema.parse(json()) };
  } catch {
    return undefined;
  }
  return undefined;
}
