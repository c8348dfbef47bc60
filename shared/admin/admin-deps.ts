import type { Clock, RandomSource } from '../clock.ts';
import type { ConnectionAdminDeps } from '../connections/connection-admin.ts';
import type { StreamPageHint } from '../connections/connection-streams-after.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { StateRemoval } from '../polling/removed-streams.ts';
import type { WindowSettings } from '../polling/windows.ts';
import type { StateStore, StreamFilter } from '../state/state-store.ts';
import type { DeliveryCounter } from '../webhooks/delivery-counter.ts';
import type { WebhookService } from '../webhooks/service.ts';
import type { WriteThrough } from '../writes/write-through.ts';
import type { BackfillEstimates } from './backfill-estimates.ts';
import type { BackfillJobStore } from './backfill-jobs.ts';
import type { BackfillSourcesCache } from './backfill-sources-cache.ts';
import type { BudgetView, HeldStreamView } from './streams-view.ts';

/**
 * How callers authenticate to the admin API: `bearer` (the local API with BRIDGE_ADMIN_TOKEN),
 * `none` (the local API on loopback without it), `iam` (behind API Gateway, SigV4).
 */
export type AdminAuthentication = 'none' | 'bearer' | 'iam';

/**
 * Everything the admin API runs on. The same object is built by `change-bridge start`
 * (dynalite, the SQS emulator) and by the API Gateway handler (DynamoDB, SQS), so every
 * route behaves the same locally and in AWS.
 */
export interface AdminDeps {
  /** Subscriptions, events, deliveries (shared/webhooks/service.ts). */
  webhooks: WebhookService;
  /** Stream states and snapshots, shared with the pollers. */
  state: StateStore;
  /**
   * The configured streams (POLL_ENTITIES × enabled connections); backfill and resync choose
   * among them. Called on every request that needs them: connections added at run time change it.
   * With a filter naming a connection, it may read that connection's streams alone (the AWS
   * one reads its item, not every connection's); callers match the ids to the filter anyway.
   * With a `page` (a page of `GET /streams`), it may answer only part of them: at least the
   * first `page.want` whose ids sort after `page.after` (every one if fewer), none missing
   * between them (the AWS one reads the stored connections from the cursor's on, not all);
   * callers keep those after `page.after` and sort them anyway.
   */
  streams(filter?: StreamFilter, page?: StreamPageHint): Promise<readonly StreamDefinition[]>;
  /**
   * The most streams one answer of `GET /streams` holds, and how many it holds when the caller
   * gives no `limit` (the AWS function's, so its answer fits Lambda's 6 MB and its reads stay
   * few): with more, the answer is the first page and its `nextCursor`, after reading that many
   * stream states and one more. Absent: no bound (the local `start`), every stream at once
   * unless the caller asks for a `limit`.
   */
  streamListLimit?: number;
  /**
   * The most bytes the JSON of an answer of `GET /streams` (and of a backfill job's,
   * `GET /backfill/{id}`, `POST /backfill`) takes inside a Lambda proxy result (escaped once
   * more): a page ends before its streams would pass it, a job's answer leaves streams out (the
   * AWS function's, so streams with long errors still fit Lambda's 6 MB). Absent: no bound.
   */
  streamListBytes?: number;
  /**
   * The most connections one answer of `GET /connections` holds, and how many when the caller
   * gives no `limit` (the AWS function's): with more, the answer is the first page and its
   * `nextCursor`, after reading that many stored connections and one more. Absent: no bound
   * (the local `start`), every connection at once unless the caller asks for a `limit`.
   */
  connectionListLimit?: number;
  /**
   * The most bytes the JSON of an answer of `GET /connections` takes inside a Lambda proxy
   * result (escaped once more): a page ends before its connections would pass it. Absent: no bound.
   */
  connectionListBytes?: number;
  /** Window settings of the pollers: where a first sync starts, the settle lag. */
  windows: WindowSettings;
  /** Succeeded deliveries per stream, as the dispatcher counts them (backfill progress). */
  deliveryCounter: DeliveryCounter;
  /** Where backfill jobs are kept. */
  backfills: BackfillJobStore;
  /**
   * Reuses what a backfill's progress is read from between readings, for a job of many streams
   * (see BackfillSourcesCache): one per process. Absent: every reading reads every stream.
   */
  backfillSources?: BackfillSourcesCache;
  /**
   * The samples each backfill job's estimate is measured over (see BackfillEstimates): one per
   * process. Absent: each answer estimates from its one reading (rates since the job started).
   */
  backfillEstimates?: BackfillEstimates;
  clock: Clock;
  /** Seeds job ids. */
  random: RandomSource;
  /**
   * Streams the process's poll loop holds back in memory (their failures could not be stored:
   * a full disk), by id, for `streams list`; absent where no loop runs in the process (AWS).
   */
  heldStreams?: () => ReadonlyMap<string, HeldStreamView>;
  /** The connector budget per connection (`streams list`); absent where the process has none. */
  budgets?: () => BudgetView[];
  /**
   * How a connection's removal and a reset of a stream whose connection is gone delete stream
   * state and snapshots: `now`, inside the request (default; the local `start`), or
   * `background` (the AWS admin function, behind API Gateway's 29 s): see StateRemoval.
   */
  stateRemoval?: StateRemoval;
  /** Connections as data (`/connections` routes); absent: those routes answer 404. */
  connections?: ConnectionAdminDeps;
  /** The connector proxy (POST /api/connector/v1/…); absent: those routes answer 404. */
  writeThrough?: WriteThrough;
  /**
   * How callers authenticate, as `/openapi.json` states it. Set by the server that serves the
   * API (startAdminServer from its token, the API Gateway handler), never by the caller.
   */
  authentication: AdminAuthentication;
  /**
   * Told about every error answered with 500 (its details never reach the caller). What it
   * throws is dropped: the 500 goes out all the same.
   */
  onError?: (error: unknown, request: { method: string; path: string }) => void;
}
