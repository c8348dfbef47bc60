import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { type AdminServer, startAdminServer } from '../../../shared/admin/node-server.ts';
import type { ConnectorConfig } from '../../../shared/connector/connector-config.ts';
import {
  createWriteThrough,
  type WriteThroughOptions,
} from '../../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../../admin/support/harness.ts';
import { collectingPublisher } from './simulator-writes.ts';

/** The admin API on 127.0.0.1 in front of a connector stand-in, as a fixture's `start` left it. */
export interface StandInBridge {
  /** The admin API's base URL. */
  url: string;
  /** The admin API's in-memory ports and manual clock; its `deps.writeThrough` is the proxy. */
  harness: AdminHarness;
}

/** What a test sets apart from the defaults of {@link useConnectorStandIn}'s `start`. */
export interface StandInOptions {
  /** Over the stand-in's URL, tokens `ct`/`at`, client `test` and `rateLimit: false`. */
  connector?: Partial<ConnectorConfig>;
  /** Over a publisher that keeps nothing and the harness's manual clock. */
  writeThrough?: Partial<Pick<WriteThroughOptions, 'publisher' | 'clock' | 'onPublishError'>>;
}

/** Starts and stops the bridge of a {@link useConnectorStandIn} fixture. */
export interface ConnectorStandIn {
  /**
   * Starts a connector on 127.0.0.1 that answers with `answer`, an admin harness whose
   * write-through proxies to it, and the admin API's server in front of them.
   */
  start(answer: RequestListener, options?: StandInOptions): Promise<StandInBridge>;
  /** Closes what `start` opened (the admin server, the write-through, the harness, the connector). */
  stop(): Promise<void>;
}

/**
 * A fixture of the connector proxy against a connector of the test's own (a silent one, one
 * that answers HTML, one that pauses the token): call it at a test file's top level; it stops
 * what the test started after each test.
 * @example
 * const standIn = useConnectorStandIn();
 * const { url } = await standIn.start((request) => request.socket.destroy());
 */
export function useConnectorStandIn(): ConnectorStandIn {
  let connector: Server | undefined;
  let admin: AdminServer | undefined;
  let harness: AdminHarness | undefined;

  async function stop(): Promise<void> {
    await admin?.close();
    await harness?.deps.writeThrough?.close();
    await harness?.close();
    connector?.closeAllConnections();
    await new Promise((resolve) => connector?.close(resolve) ?? resolve(undefined));
    connector = undefined;
    admin = undefined;
    harness = undefined;
  }

  async function start(answer: RequestListener, options: StandInOptions = {}) {
    const server = createServer(answer);
    connector = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = createAdminHarness();
    harness = started;
    started.deps.writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: {
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        clientToken: 'ct',
        accessToken: 'at',
        client: 'test',
        rateLimit: false,
        ...options.connector,
      },
      scope: {},
      publisher: collectingPublisher(),
      state: started.state,
      streams: started.streams,
      clock: started.clock,
      ...options.writeThrough,
    });
    admin = await startAdminServer({ port: 0, deps: started.deps });
    return { url: admin.url, harness: started };
  }

  afterEach(stop);
  return { start, stop };
}

/** POSTs `body` as JSON to the admin API's connector proxy, `operation` (`vouchers/add`, …). */
export function postToProxy(url: string, operation: string, body: object): Promise<Response> {
  return fetch(`${url}/api/connector/v1/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}
