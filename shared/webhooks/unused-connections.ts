import type { Socket } from 'node:net';

/**
 * How long a webhook connection may stay open with nothing sent on it: 1 s. undici connects only
 * for a request waiting, and writes it as soon as the connection is up (after the TLS handshake,
 * which the callback that arms this waits for), so a connection still unused after this never
 * had a request to carry.
 */
export const UNUSED_CONNECTION_CLOSE_MS = 1_000;

/**
 * Closes `socket` if nothing was sent on it within `afterMs` of now (its connection just made).
 * undici 7 opens one such connection for each request cut off while it waited for an answer (a
 * timeout, a stop): it re-queues the aborted request, connects again for it, then drops it
 * (nodejs/undici#5845). Where other connections of its pool stay open, that one stays too, idle
 * until the keep-alive timeout (30 s) closes it. To a receiver that never answers, each cut-off
 * request then left a connection open, up to the endpoint's concurrency, and the next attempt
 * within those 30 s was sent over it, which left another. The timer holds no process open.
 * @example connect(options, (error, socket) => { if (socket) closeIfUnused(socket); callback(error, socket); })
 */
export function closeIfUnused(socket: Socket, afterMs = UNUSED_CONNECTION_CLOSE_MS): void {
  const sentBefore = socket.bytesWritten;
  const timer = setTimeout(() => {
    if (socket.bytesWritten === sentBefore) socket.destroy();
  }, afterMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
