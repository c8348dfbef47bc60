import type { EntityRecord } from '../changes/entity-types.ts';
import { ConnectionNotFoundError } from '../connections/connection-admin.ts';
import { createConnectorCaller } from '../connector/client.ts';
import { CONFIGURED_CREDENTIALS } from '../connector/credential-fields.ts';
import { ConnectorError } from '../connector/errors.ts';
import {
  createUndiciTransport,
  type HttpTransport,
  type RawResponse,
} from '../connector/http-transport.ts';
import type { OperationName, OperationRequest } from '../connector/operations.ts';
import { answerOf } from './connector-answer.ts';
import { isWriteOperation } from './events-of-write.ts';
import { publishPolledWrite } from './publish-polled-write.ts';
import { publishWriteOnly } from './publish-write-only.ts';
import type { WriteThroughOptions } from './write-through-options.ts';

export type { BackfillWrittenCounts, WriteThroughOptions } from './write-through-options.ts';

/** The connector's answer, passed on unchanged; `events` counts what was published. */
export interface ForwardResult {
  status: number;
  body: unknown;
  /** The connector's `Retry-After` (a 429's wait) and `Request-Id`, when it sent them. */
  headers: Record<string, string>;
  events: number;
}

/**
 * When a proxied call's answer is due: its caller gives up after 29 s in AWS (API Gateway's
 * integration timeout, the admin function's) and 30 s with the CLI (ADMIN_REQUEST_TIMEOUT_MS),
 * and must have the answer before then, not a write applied after it stopped listening. Each
 * request's timeout ends by then, and retries start by 5 s before (DEADLINE_ATTEMPT_MIN_MS): a
 * 429 whose Retry-After would end later is answered with it.
 */
export const PROXY_ANSWER_MS = 25_000;

/** Forwards connector operations and publishes the events of successful writes. */
export interface WriteThrough {
  /**
   * Sends `operation` with the credentials of `connectionId` (absent: the proxy's default
   * connection).
   * @throws ConnectionNotFoundError when no such connection exists (or it was removed),
   * ConnectionUnwritableError when it exists but cannot be written through (disabled, its
   * token not opened).
   */
  forward(
    operation: OperationName,
    body: EntityRecord,
    connectionId?: string,
  ): Promise<ForwardResult>;
  /**
   * Where the credentials of `connectionId` (absent: the default connection's) come from, as
   * what the user configured: the CONNECTOR_* variables, a stored connection, a secret. Told
   * to a caller who put a credential in the body.
   */
  credentialsOf?(connectionId: string | undefined): string;
  close(): Promise<void>;
}

/**
 * Creates the proxy core. `forward` validates the body with the operation's request schema
 * (a ValidationError before anything is sent), sends it with the connection's envelope,
 * the shared limiter and the client's retry rules, and answers the connector's final status
 * and body. After a successful write it publishes the events (publish first, then store the
 * snapshots, as a poll does); a failed write publishes nothing. A publish failure goes to
 * `onPublishError` (the snapshot stays unwritten, so the next poll still reports a polled
 * entity's change). A call that got no answer throws the client's ConnectorError.
 */
export function createWriteThrough(options: WriteThroughOptions): WriteThrough {
  const transport = options.transport ?? createUndiciTransport();
  const tokens = [options.connector.clientToken, options.connector.accessToken];

  async function publishWrite(
    operation: OperationName,
    request: EntityRecord,
    response: unknown,
    answerDue: number,
  ): Promise<number> {
    if (!isWriteOperation(operation)) return 0;
    if (operation === 'customers/update' || operation === 'paymentRequests/add')
      return publishPolledWrite(options, operation, request, response, answerDue);
    return publishWriteOnly(options, operation, request, response);
  }

  function reportUnpublished(error: unknown, operation: OperationName): void {
    if (!options.onPublishError) throw error;
    options.onPublishError(error, operation);
  }

  return {
    async forward(operation, body, connectionId) {
      // One connection's proxy: another named is none of its own.
      if (connectionId !== undefined && connectionId !== options.connectionId)
        throw new ConnectionNotFoundError(`connection ${connectionId} does not exist`);
      const answerDue = options.clock.now() + PROXY_ANSWER_MS;
      let last: RawResponse | undefined;
      const recording: HttpTransport = {
        postJson: async (url, text, init) => {
          last = await transport.postJson(url, text, init);
          return last;
        },
        close: async () => {},
      };
      const caller = createConnectorCaller(options.connector, {
        ...options.clientDeps,
        clock: options.clock,
        transport: recording,
      });
      let response: unknown;
      let sent: EntityRecord;
      try {
        // Live polls go first (design.md, Connector budget): a burst of proxied calls takes
        // what they leave, as bulk work does, and never holds a poll back a window or more.
        const result = await caller.send(operation, body as OperationRequest<typeof operation>, {
          budget: { priority: 'bulk' },
          deadline: answerDue,
        });
        response = result.response;
        sent = result.sentBody;
      } catch (error) {
        if (error instanceof ConnectorError && last !== undefined && error.status === last.status) {
          // A write the connector applied (200) whose answer breaks the contract: its events
          // cannot be built, and are lost unless someone is told (the next poll of a polled
          // entity finds the change; nothing else would).
          if (error.category === 'response' && isWriteOperation(operation))
            reportUnpublished(error, operation);
          return { status: last.status, ...answerOf(last, tokens), events: 0 };
        }
        throw error;
      }
      let events = 0;
      try {
        events = await publishWrite(operation, sent, response, answerDue);
      } catch (error) {
        reportUnpublished(error, operation);
      }
      return last
        ? { status: last.status, ...answerOf(last, tokens), events }
        : { status: 200, body: response, headers: {}, events };
    },
    credentialsOf: () => options.credentialSource ?? CONFIGURED_CREDENTIALS,
    close: () => transport.close(),
  };
}
