import type { Socket } from 'node:net';

/** The status line of a `100 Continue` answer as far as it decides: `HTTP/1.x 100` then SP or CR. */
const CONTINUE_LINE = /^HTTP\/1\.[01] 100[ \r]/;
/** Bytes needed to judge a status line against {@link CONTINUE_LINE}. */
const CONTINUE_LINE_BYTES = 'HTTP/1.1 100 '.length;
/** Longest `100 Continue` answer held while its end is awaited; a longer one is passed on. */
const CONTINUE_MAX_BYTES = 16 * 1024;

/**
 * Drops every `100 Continue` answer that comes before a final answer on `socket`, so that the
 * final status decides (RFC 9110 §15.2: a client must parse 1xx answers it did not ask for).
 * undici reads the other 1xx answers (103 Early Hints, 102 Processing) and goes on to the final
 * one, but takes a 100 for a bad response and fails the request, though a receiver (or a proxy
 * in front of it) may send one before its 2xx: the event it took would be sent again and again,
 * and its endpoint judged failing.
 *
 * An answer starts with the first bytes read after a request is written: undici writes a
 * connection's next request only once the answer before it is complete (no pipelining). Only
 * there is a `100` looked for; what follows the first byte of a final answer passes untouched.
 */
export function skipContinueAnswers(socket: Socket): void {
  let atAnswerStart = false;
  let held: Buffer | undefined;
  const write = socket.write;
  const push = socket.push;
  socket.write = function (this: Socket, ...args: unknown[]) {
    // Nothing is held here with one request at a time; were it so, it is passed on, not lost.
    if (held) push.call(this, held);
    held = undefined;
    atAnswerStart = true;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Socket['write'];
  socket.push = function (this: Socket, chunk: unknown, encoding?: BufferEncoding) {
    if (!atAnswerStart || !Buffer.isBuffer(chunk)) {
      if (chunk === null && held) push.call(this, held);
      held = undefined;
      return push.call(this, chunk, encoding);
    }
    let buffer = held ? Buffer.concat([held, chunk]) : chunk;
    held = undefined;
    for (;;) {
      const verdict = continueAnswerEnd(buffer);
      if (verdict === 'undecided') {
        held = buffer;
        return true;
      }
      if (verdict === 'not-continue') break;
      buffer = buffer.subarray(verdict);
      if (buffer.length === 0) return true;
    }
    atAnswerStart = false;
    return push.call(this, buffer);
  } as Socket['push'];
}

/**
 * Whether `buffer` starts with a whole `100 Continue` answer (then the offset just past it), with
 * something else (`not-continue`), or cannot be told yet (`undecided`).
 */
function continueAnswerEnd(buffer: Buffer): number | 'undecided' | 'not-continue' {
  if (buffer.length < CONTINUE_LINE_BYTES) {
    const text = buffer.toString('latin1');
    return 'HTTP/1.1 100 '.startsWith(text) || 'HTTP/1.0 100 '.startsWith(text)
      ? 'undecided'
      : 'not-continue';
  }
  if (!CONTINUE_LINE.test(buffer.subarray(0, CONTINUE_LINE_BYTES).toString('latin1'))) {
    return 'not-continue';
  }
  const end = buffer.indexOf('\r\n\r\n');
  if (end >= 0) return end + 4;
  return buffer.length > CONTINUE_MAX_BYTES ? 'not-continue' : 'undecided';
}
