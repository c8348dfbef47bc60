import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The local runtime's inner servers (dynalite, the disk queue's SQS endpoint) listen on
 * 127.0.0.1 for the bridge's own clients. A web page the operator visits can reach them too
 * (DNS rebinding: its own name resolved to 127.0.0.1), and they hold every subscription's
 * secret and every guest record. It cannot choose the Host its requests carry, nor hide their
 * Origin; the bridge's own clients send `127.0.0.1:<port>` and no Origin.
 */

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Why a request that came over the network is refused, or undefined when it may pass: its
 * `Host` must be `127.0.0.1:<port>` or `localhost:<port>`, and it must carry no `Origin`
 * (only browsers send one).
 * @example refusalOf({ host: 'attacker.example:4321' }, 4321) // 'Host attacker.example:4321 …'
 */
export function refusalOf(headers: IncomingMessage['headers'], port: number): string | undefined {
  const host = (headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
    return `Host ${host || '(none)'} is not this local server`;
  if (headers.origin !== undefined) return 'requests from web pages are refused';
  return undefined;
}

/**
 * Makes `server` answer 403 to requests that come over the network from anything but the
 * bridge itself ({@link refusalOf}); its own listeners see only the rest. Requests handed to
 * the listeners in process (no socket) pass as before. Call it before the server listens.
 */
export function refuseForeignCallers(server: Server): Server {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const overNetwork = request.socket !== undefined;
    const refusal = overNetwork
      ? refusalOf(request.headers, (server.address() as AddressInfo).port)
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
