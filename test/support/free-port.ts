import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 the OS has just given out and nothing holds (listen on 0, close):
 * unlike a random pick, never one another socket of the test run already uses.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}
