import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  dynaliteInProcessAnswer,
  dynaliteRequestHandler,
  unsignedLocalSigner,
} from '../../shared/local/dynalite-in-process.ts';
import { closeDynaliteServer, startDynaliteServer } from '../../shared/local/dynalite-server.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';

/** A dynalite server in this process and a maker of plain SDK clients of it. */
export interface SdkDynalite {
  /** `http://127.0.0.1:<port>`: the server listens there too, for anything else. */
  endpoint: string;
  /** A new plain SDK client of the server (each with a middleware stack of its own). */
  newClient(): DynamoDBClient;
  /** Stops the server; destroy the clients first. */
  stop(): Promise<void>;
}

/**
 * Starts dynalite in this process (the local runtime's server, its fixes applied) and makes
 * plain SDK clients of it whose every command goes through the SDK's middleware and
 * serialisation, where a test can record it, as in Lambda; their requests reach dynalite's own
 * request listener without a socket and unsigned, as the local runtime's do. dynalite answers
 * the same as over HTTP; the HTTP work on both sides and the SigV4 arithmetic (which dynalite
 * never checks) took a sixth of the CPU of tests that store a few thousand items.
 * Unlike `startLocalDynamoDb`'s in-process transport, document clients are not routed past the
 * SDK.
 * @example const db = await startSdkDynalite(); const client = db.newClient(); ...; client.destroy(); await db.stop();
 */
export async function startSdkDynalite(): Promise<SdkDynalite> {
  const server = await startDynaliteServer();
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requestHandler = dynaliteRequestHandler(dynaliteInProcessAnswer(server));
  return {
    endpoint,
    newClient: () =>
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint,
        credentials: LOCAL_CREDENTIALS,
        requestHandler,
        signer: unsignedLocalSigner,
      }),
    stop: () => closeDynaliteServer(server),
  };
}
