import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The local store's and queue's servers (dynalite, the disk queue's SQS endpoint), when asked to
 * listen (tests and tools: `start` reaches both in process and opens no port for them), listen
 * on 127.0.0.1 for the bridge's own clients. A web page the operator visits can reach them too
 * (DNS rebinding: its own name resolved to 127.0.0.1), and they hold every subscription's
 * secret and every guest record. It cannot choose the Host its requests carry, nor hide their
 * Origin; the bridge's own clients send `127.0.0.1:<port>` and no Origin.
 */

import { LOCAL_CREDENTIALS, signedWith } from './local-credentials.ts';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Why a request that came over the network is refused, or undefined when it may pass: its
 * `Host` must be `127.0.0.1:<port>` or `localhost:<port>`, it must carry no `Origin` (only
 * browsers send one), and it must be signed with `accessKeyId`, the bridge's own
 * ({@link LOCAL_CREDENTIALS}): another process of the machine is refused.
 * @example refusalOf({ host: 'attacker.example:4321' }, 4321, 'local-1a2b') // 'Host attacker.example:4321 …'
 */
export function refusalOf(
  headers: IncomingMessage['headers'],
  port: number,
  accessKeyId: string,
): string | undefined {
  const host = (headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
    return `Host ${host || '(none)'} is not this local server`;
  if (headers.origin !== undefined) return 'requests from web pages are refused';
  if (!signedWith(headers.authorization, accessKeyId))
    return 'only the bridge that started this server is answered';
  return undefined;
}

/**
 * Makes `server` answer 403 to requests that come over the network from anything but the
 * bridge itself ({@link refusalOf}; `accessKeyId` is its clients' credential, this process's
 * own unless the bridge runs the server in a thread of its own); its own listeners see only
 * the rest. Requests handed to the listeners in process (no socket) pass as before. Call it
 * before the server listens.
 */
export function refuseForeignCallers(
  server: Server,
  accessKeyId: string = LOCAL_CREDENTIALS.accessKeyId,
): Server {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const overNetwork = request.socket !== undefined;
    const refusal = overNetwork
      ? refusalOf(request.headers, (server.address() as AddressInfo).port, accessKeyId)
      : undefined;
    if (refusal === undefined) {
      for (const listener of listeners) listener(request, response);
      return;
    }
    response.writeHead(403, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ message: refusal }));
  });
  return server;
}
