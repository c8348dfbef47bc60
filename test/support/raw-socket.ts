import { connect, type Socket } from 'node:net';

/** What a raw connection received before it ended, and how it ended. */
export interface RawExchange {
  /** Every byte received, as text. */
  text: string;
  /** `end` when the server closed its side cleanly (FIN), `error` with the code otherwise, `open` when still open at the deadline. */
  ending: 'end' | 'open' | `error ${string}`;
  /** Milliseconds from the first byte written until the ending. */
  elapsedMs: number;
}

/**
 * Writes `chunks` to a new connection to `127.0.0.1:port` (none: an idle connection) and
 * collects what comes back until the server closes the connection or `deadlineMs` passes:
 * what a client fetch cannot send (a malformed request, headers cut short).
 */
export function rawExchange(
  port: number,
  chunks: string[],
  deadlineMs: number,
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const start = Date.now();
    let text = '';
    let settled = false;
    const finish = (ending: RawExchange['ending']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ending, elapsedMs: Date.now() - start });
    };
    const timer = setTimeout(() => finish('open'), deadlineMs);
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      text += data;
    });
    socket.on('end', () => finish('end'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(`error ${error.code ?? error.message}`),
    );
    socket.on('close', () => finish('end'));
    for (const chunk of chunks) socket.write(chunk);
  });
}

/** The status, lower-cased headers and body of a raw HTTP/1.1 answer. */
export function parseRawAnswer(text: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(statusLine.split(' ')[1] ?? 0),
    headers,
    body: split === -1 ? '' : text.slice(split + 4),
  };
}

/** Reads from `from` until one whole answer (headers and content-length body) has come. */
export function nextAnswer(from: Socket): Promise<ReturnType<typeof parseRawAnswer>> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (data: Buffer) => {
      text += data.toString('latin1');
      const answer = parseRawAnswer(text);
      if (
        answer.status &&
        Buffer.byteLength(answer.body) >= Number(answer.headers['content-length'])
      ) {
        from.off('data', onData);
        resolve(answer);
      }
    };
    from.on('data', onData);
    from.once('error', reject);
  });
}
