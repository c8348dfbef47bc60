import { DEFAULT_VOLATILE_FIELDS } from '../changes/canonical.ts';
import type { EntityRecord, Scope } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import { ConnectionNotFoundError } from '../connections/connection-admin.ts';
import { type ConnectorClientDeps, createConnectorCaller } from '../connector/client.ts';
import type { ConnectorConfig } from '../connector/connector-config.ts';
import { CONFIGURED_CREDENTIALS, withoutTokens } from '../connector/credential-fields.ts';
import { ConnectorError } from '../connector/errors.ts';
import {
  createUndiciTransport,
  type HttpTransport,
  type RawResponse,
} from '../connector/http-transport.ts';
import type { OperationName, OperationRequest } from '../connector/operations.ts';
import { BridgeError, describeThrown } from '../errors.ts';
import { liveJudging } from '../polling/backfill-state.ts';
import { storeGuarded } from '../polling/guarded-snapshots.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import {
  type SnapshotWriteGate,
  WRITE_WAITS_FOR_PAGES_MS,
} from '../polling/snapshot-write-gate.ts';
import { takeUnconfirmed, withUnconfirmed } from '../polling/unconfirmed-events.ts';
import type { EventPublisher } from '../publish/publisher.ts';
import type { StateStore } from '../state/state-store.ts';
import {
  isWriteOperation,
  POLLED_WRITES,
  polledRecords,
  polledWriteChanges,
  VERSIONED_WRITES,
  type WriteOnlyOperation,
  writeOnlyChanges,
  writeOnlyScope,
  writeOnlySubjects,
} from './events-of-write.ts';
import { writeOnlyStreamId } from './written-events.ts';

/** What the write-through proxy runs on: the configured connection and the poller's ports. */
export interface WriteThroughOptions {
  connectionId: string;
  /** The connection's credentials: callers of the proxy never send connector tokens. */
  connector: ConnectorConfig;
  /** The connection's scope, for records that carry none. */
  scope: Scope;
  /** The same publisher the pollers use (EventBridge in AWS, the local router locally). */
  publisher: EventPublisher;
  /** The same snapshots the pollers keep. */
  state: StateStore;
  /** The configured streams: their ids and volatile fields. */
  streams: readonly StreamDefinition[];
  clock: Clock;
  /** The HTTP transport (default: undici). */
  transport?: HttpTransport;
  /**
   * What the pollers' clients of the connection are built with: the ledger and margin of the
   * token's budget, so the proxy's requests draw from the budget the pollers spend (one budget
   * per AccessToken, design.md); without them, a budget of this process's own.
   */
  clientDeps?: Pick<ConnectorClientDeps, 'budgetLedger' | 'budgetMarginMs' | 'random'>;
  /**
   * Told when the events of a successful write could not be published (the publisher failed,
   * or the connector's 200 broke the contract, so there is nothing to build them from); the
   * connector's answer is still returned (the write happened, and repeating an add would add
   * twice). Without it such a failure throws.
   */
  onPublishError?: (error: unknown, operation: OperationName) => void;
  /**
   * The pollers' gate in this process (`start`): a write waits for the live pages of its
   * stream in flight to store, and pages opened meanwhile store with conditions. Without one
   * (the AWS admin Lambda), the pollers' live pages of these entities are always guarded.
   */
  snapshotGate?: SnapshotWriteGate;
  /** Where `connector` came from, for messages (default: `the configured connection`). */
  credentialSource?: string;
  /**
   * The backfill jobs (BackfillJobStore): a write's events in a stream with a backfill part
   * running are added to that job's count of them (its `written`), so the job waits for their
   * deliveries too and counts the `created` they sent ahead of a change as its own. Without it,
   * not counted.
   */
  backfills?: BackfillWrittenCounts;
}

/** Where a write's events in a stream with a backfill part running are counted (BackfillJobStore.addWritten). */
export interface BackfillWrittenCounts {
  addWritten(
    jobId: string,
    streamId: string,
    counts: { events: number; announced: number },
  ): Promise<void>;
}

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

/** Headers of the connector's answer that the caller needs as they are. */
const PASSED_HEADERS = ['retry-after', 'request-id'] as const;

function passedHeaders(raw: RawResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = raw.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first;
  }
  return headers;
}

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
 * Headers of a connector answer that is not JSON as the admin API sends it: never rendered by
 * a browser (an HTML error page of a proxy in front of the connector would otherwise run on
 * the admin API's origin, the console's): downloaded rather than shown, with no content
 * allowed to load or run, and never sniffed (every admin answer carries nosniff).
 */
const TEXT_ANSWER_HEADERS = {
  'content-disposition': 'attachment',
  'content-security-policy': "default-src 'none'; sandbox",
} as const;

/**
 * The media type a JSON type the connector named (`application/json`, `application/<x>+json`:
 * what no browser renders as a page) goes out as, with the charset the body is sent in (its
 * text was read as UTF-8); undefined for any other type.
 */
function jsonMediaType(contentType: string): string | undefined {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return /^application\/([a-z0-9.!#$&^_-]+\+)?json$/.test(essence)
    ? `${essence}; charset=utf-8`
    : undefined;
}

/**
 * The connector's answer as the caller gets it: the parsed JSON body, or a body that is not
 * JSON (a cut-off answer, a proxy's error page) as its text, instead of as a JSON string. An
 * error answer (any status but 200) has the connection's `tokens` left out first (the
 * connector, or a gateway in front of it, may repeat the request, envelope and all): callers
 * of the proxy never see connector tokens. Its media type is the connector's when that is JSON
 * (in UTF-8), else `text/plain; charset=utf-8` (never `text/html`, whatever the connector
 * said), with {@link TEXT_ANSWER_HEADERS}.
 */
function answerOf(
  raw: RawResponse,
  tokens: readonly string[],
): { body: unknown; headers: Record<string, string> } {
  const headers = passedHeaders(raw);
  const text = raw.status === 200 ? raw.text : withoutTokens(raw.text, tokens);
  try {
    return { body: JSON.parse(text), headers };
  } catch {
    const type = raw.headers['content-type'];
    const named = Array.isArray(type) ? type[0] : type;
    const contentType =
      (named === undefined ? undefined : jsonMediaType(named)) ?? 'text/plain; charset=utf-8';
    return {
      body: text,
      headers: { ...headers, ...TEXT_ANSWER_HEADERS, 'content-type': contentType },
    };
  }
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
  const context = () => ({
    connectionId: options.connectionId,
    scope: options.scope,
    now: options.clock.now(),
  });

  async function publishWrite(
    operation: OperationName,
    request: EntityRecord,
    response: unknown,
    answerDue: number,
  ): Promise<number> {
    if (!isWriteOperation(operation)) return 0;
    if (operation === 'customers/update' || operation === 'paymentRequests/add') {
      const entityType = POLLED_WRITES[operation];
      const stream = options.streams.find(
        (s) => s.connectionId === options.connectionId && s.spec.entityType === entityType,
      );
      const streamId = stream?.streamId ?? `${options.connectionId}:${entityType}`;
      // Live pages of the stream in flight in this process store first (those it stops waiting
      // for, when the answer falls due, store with conditions); later ones are guarded.
      const endWrite = await options.snapshotGate?.openWrite(
        streamId,
        Math.min(WRITE_WAITS_FOR_PAGES_MS, Math.max(0, answerDue - options.clock.now())),
      );
      try {
        const records = polledRecords(operation, response);
        const ids = records.map((record) => String(record.Id));
        const volatileFields = stream?.spec.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
        const stored = await options.state.getSnapshots(streamId, ids);
        // Judged as a live poll of the stream would judge it now: a backfill that emits and has
        // not read the entity yet gets its `created` first (the write moves it past the pass).
        const streamState = await options.state.getStream(streamId);
        const now = options.clock.now();
        const backfill = streamState
          ? liveJudging(streamState, { startUtc: new Date(now).toISOString() })
          : undefined;
        // Events a poll's failed publish may have put out in part go first, as a poll sends
        // them, and the write is judged from their `current` (see unconfirmed-events.ts).
        const taken = takeUnconfirmed(
          stored,
          records.map((record, i) => ({ entityId: ids[i]!, record })),
        );
        const changes = withUnconfirmed(
          polledWriteChanges({
            context: context(),
            entityType,
            volatileFields,
            records,
            stored: taken.judged,
            request,
            backfill,
          }),
          taken,
        );
        if (changes.events.length > 0) await options.publisher.publish(changes.events);
        // A poll of the stream may store the same entities meanwhile: only over what was read.
        const corrections = await storeGuarded({
          store: options.state,
          streamId,
          connectionId: options.connectionId,
          entityType,
          scope: options.scope,
          volatileFields,
          read: stored,
          writes: changes.writes,
          published: new Set(changes.events.map((event) => event.subject)),
          publishedAt: options.clock.now(),
          now: options.clock.now(),
          publish: async (events) => {
            await options.publisher.publish(events);
          },
        });
        const published = changes.events.length + corrections;
        // The job waits for the deliveries of every event of its streams detected while it runs.
        // (A stream reset's first sync names no job: `reset_…`, not `bf_…`.)
        const jobId = streamState?.backfill?.jobId;
        if (published > 0 && jobId?.startsWith('bf_') && options.backfills)
          await options.backfills
            .addWritten(jobId, streamId, { events: published, announced: changes.announced ?? 0 })
            .catch((error: unknown) => {
              throw new BridgeError(
                `events published, but not counted in backfill ${jobId}: ${describeThrown(error)}`,
                { cause: error },
              );
            });
        return published;
      } finally {
        endWrite?.();
      }
    }
    return publishWriteOnly(operation, request, response);
  }

  /**
   * Keeps each subject's version of a write-only operation's events (see buildWrittenEvent),
   * then publishes them: each id is told apart from the subject's earlier events, and a repeat
   * of the same result gets the same id again. An event kept but not published (the publish
   * failed, and is reported) is sent with that same id by the next write of that result.
   */
  async function publishWriteOnly(
    operation: WriteOnlyOperation,
    request: EntityRecord,
    response: unknown,
  ): Promise<number> {
    const versioned =
      operation === 'vouchers/add'
        ? undefined
        : {
            streamId: writeOnlyStreamId(options.connectionId, VERSIONED_WRITES[operation]),
            subjects: writeOnlySubjects(operation, request),
          };
    const versions =
      versioned && (await options.state.getSnapshots(versioned.streamId, versioned.subjects));
    // A voucher names no enterprise: a Portfolio Access Token's request says which it is.
    const scope = writeOnlyScope(
      operation,
      request,
      options.scope,
      options.connector.portfolioScope !== undefined,
    );
    const written = writeOnlyChanges(
      { ...context(), scope, ...(versions ? { versions } : {}) },
      operation,
      request,
      response,
    );
    if (written.length === 0) return 0;
    if (versioned)
      await options.state.putSnapshots(
        versioned.streamId,
        written.map((w) => w.version),
      );
    await options.publisher.publish(written.map((w) => w.event));
    return written.length;
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
