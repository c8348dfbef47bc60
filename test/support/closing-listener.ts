import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

/** A TCP listener on 127.0.0.1 that closes every connection at once, counting them. */
export interface ClosingListener {
  port: number;
  /** Connections made to it so far: each one a request some command tried. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * Starts a {@link ClosingListener}: where a command's request is seen to have been made (the
 * connection counted) and to fail (nothing answers), on a free port.
 */
export async function startClosingListener(): Promise<ClosingListener> {
  let connections = 0;
  const listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}
