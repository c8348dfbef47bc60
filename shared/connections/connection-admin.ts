import { z } from 'zod';
import { EntityTypeListSchema } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import { splitCommaText } from '../comma-list.ts';
import { portfolioScopeProblem } from '../connector/connector-config.ts';
import { DurationSchema } from '../duration.ts';
import { BridgeError, ValidationError } from '../errors.ts';
import { connectionLeaseId } from '../polling/poll-connection.ts';
import { entitiesWithoutPortfolioRead } from '../polling/portfolio-entities.ts';
import { removeStream, type StateRemoval } from '../polling/removed-streams.ts';
import { ExportIdSchema, ProductTargetTextSchema } from '../polling/tracked-targets.ts';
import { isRemovedStream, type StateStore, type StreamState } from '../state/state-store.ts';
import {
  ConnectionIdSchema,
  ConnectionSettingsSchema,
  type ConnectionView,
  type StoredConnection,
  toConnectionView,
  withoutReservedId,
} from './connection.ts';
import { assertSameDefinition } from './connection-add-again.ts';
import { type ConnectionDetail, parkedStreamsOf } from './connection-detail.ts';
import {
  ConnectionExistsError,
  type ConnectionStore,
  listAllConnections,
} from './connection-store.ts';
import { CONNECTION_WATCH_MS } from './connection-watch.ts';
import type { TokenCipher } from './token-cipher.ts';

/**
 * Bounds that keep a stored connection inside one DynamoDB item (400 KB): an AccessToken is
 * far shorter than 4,096 characters, and every product followed is a request per poll. Past
 * them the request fit the 1 MiB body but the store refused the item, a 500.
 */
const ACCESS_TOKEN_MAX_LENGTH = 4096;
/**
 * Inside a token: a line break, space or control character (a file of several lines, such as
 * a `.env`), or U+FFFD, what bytes that are not UTF-8 become (a file saved as UTF-16). Stored,
 * such a token was refused at every poll; the add is refused instead, naming the field.
 */
const ACCESS_TOKEN_INNER_SPACE = /[\s\p{Cc}]/u;
const ACCESS_TOKEN_NOT_UTF8 = /\uFFFD/u;
const TRACKED_IDS_MAX = 1000;
/**
 * The longest poll interval of a connection: a day is far past any wait for change events.
 * Unbounded, `99999999d` put a stream's next due time past what a Date holds (`GET /streams`
 * answered 500 for every stream) and longer ones were refused naming `intervalMs`, a field
 * the caller never sent.
 */
const INTERVAL_MAX_MS = 86_400_000;

/**
 * What `connections add` sends. The AccessToken travels in the body only (never a URL or a
 * flag value) and is sealed before it is stored; `interval` is duration text (`1m`).
 */
export const AddConnectionInputSchema = ConnectionSettingsSchema.omit({ intervalMs: true })
  .extend({
    id: withoutReservedId(ConnectionIdSchema),
    entities: z
      .preprocess(splitCommaText, EntityTypeListSchema)
      .optional()
      .meta({ description: "Entity types; comma-separated text such as 'customer,resource' too" }),
    // The whitespace around a token is no part of it (tokens have none): a paste followed by
    // Enter, or `echo` into a file, would otherwise store a token every poll is refused with.
    accessToken: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(ACCESS_TOKEN_MAX_LENGTH, {
        error: `must be at most ${ACCESS_TOKEN_MAX_LENGTH} characters`,
      })
      .refine((token) => !ACCESS_TOKEN_INNER_SPACE.test(token), {
        error:
          'must be one token: it holds a line break, space or control character inside (a file of several lines?)',
      })
      .refine((token) => !ACCESS_TOKEN_NOT_UTF8.test(token), {
        error: 'must be UTF-8 text (a file saved as UTF-16?)',
      }),
    // Checked here, so a typo is refused at once instead of failing every poll.
    // An empty list follows nothing: a mistake (`--export-ids ''`), not a setting.
    productIds: z
      .preprocess(
        splitCommaText,
        z
          .array(ProductTargetTextSchema)
          .min(1, {
            error: 'must list at least one product id (leave it out to follow POLL_PRODUCT_IDS)',
          })
          .max(TRACKED_IDS_MAX, { error: `must list at most ${TRACKED_IDS_MAX} products` }),
      )
      .optional(),
    exportIds: z
      .preprocess(
        splitCommaText,
        z
          .array(ExportIdSchema)
          .min(1, {
            error: 'must list at least one export id (leave it out to follow POLL_EXPORT_IDS)',
          })
          .max(TRACKED_IDS_MAX, { error: `must list at most ${TRACKED_IDS_MAX} exports` }),
      )
      .optional(),
    interval: DurationSchema.pipe(
      z
        .number()
        .min(1000, { error: 'must be at least 1s' })
        .max(INTERVAL_MAX_MS, { error: 'must be at most 1d' }),
    )
      .optional()
      .meta({
        description:
          "Poll interval as duration text from 1s to 1d, such as '30s' or '1m' (a bare number is milliseconds); answered as intervalMs. Left out: the deployment's POLL_INTERVAL",
      }),
  })
  .strict()
  .superRefine((input, context) => {
    // Left out, the entities are the deployment's, which include customer by default.
    const problem = portfolioScopeProblem(input.portfolioScope, input.entities ?? ['customer']);
    if (problem)
      context.addIssue({ code: 'custom', path: ['portfolioScope', 'chainIds'], message: problem });
    // Left out, the deployment's entities are narrowed to those the token can read.
    const unreadable = input.portfolioScope
      ? entitiesWithoutPortfolioRead(input.entities ?? [])
      : [];
    if (unreadable.length > 0)
      context.addIssue({
        code: 'custom',
        path: ['entities'],
        message: `a Portfolio Access Token cannot read ${unreadable.join(', ')} (the Connector API has no portfolio read of them): leave them out`,
      });
  });
/** What `connections add` sends. */
export type AddConnectionInput = z.output<typeof AddConnectionInputSchema>;

/** A connection that does not exist; the admin API answers 404. */
export class ConnectionNotFoundError extends BridgeError {
  override name = 'ConnectionNotFoundError';
}

/**
 * How long `remove` waits for a running poll job of the connection (AWS) to stop: the job sees
 * the connection disabled within {@link CONNECTION_WATCH_MS} and ends after the write it is in.
 * Inside the admin function's 29 s.
 */
export const REMOVE_JOB_WAIT_MS = 3 * CONNECTION_WATCH_MS;
/** How often `remove` looks again for the end of a running job. */
const REMOVE_JOB_RETRY_MS = 500;
/** The removal's hold of the connection's job lease while it deletes (no job starts meanwhile). */
const REMOVAL_LEASE_TTL_MS = 60_000;

/** A poll job of the connection still runs after {@link REMOVE_JOB_WAIT_MS}; answered with 409. */
export class ConnectionBusyError extends BridgeError {
  override name = 'ConnectionBusyError';
}

/** A change the connection does not allow (it is defined by the environment); answered with 409. */
export class ConnectionReadOnlyError extends BridgeError {
  override name = 'ConnectionReadOnlyError';
}

/** What the connection admin operations run on. */
export interface ConnectionAdminDeps {
  store: ConnectionStore;
  cipher: TokenCipher;
  /** Stream states and snapshots, deleted by `remove`. */
  state: StateStore;
  clock: Clock;
  /** Connections the environment defines (CONNECTOR_*): listed, never changed here. */
  configured: readonly ConnectionView[];
  /**
   * Told after every change, so a local poll loop picks it up at once; awaited, so a
   * `disable` answered has stopped the connection's polls.
   */
  onChange?: (connectionId: string) => void | Promise<void>;
  /**
   * Told the stream states `remove` is about to delete (connection disabled), before it deletes any:
   * a backfill job of the streams keeps their figures (they live in the states). Awaited; a
   * throw stops the removal with nothing deleted, and running it again retries.
   */
  beforeStreamsDeleted?: (states: readonly StreamState[]) => Promise<void>;
  /**
   * Why an enabled stored connection is not polled, if it is not (its token did not open):
   * shown as the view's `error`. Where absent, views carry none.
   */
  notPolledBecause?: (connection: StoredConnection) => string | undefined;
  /**
   * How `remove` deletes the streams' state and snapshots (default `now`, inside the call; the
   * AWS admin API: `background`, see StateRemoval).
   */
  stateRemoval?: StateRemoval;
}

/** What `remove` answers. */
export interface ConnectionRemoval {
  id: string;
  removed: true;
  /** Streams whose state was removed (0 with keepState). */
  streamsDeleted: number;
  /** `done`: their state and snapshots are gone; `background`: hidden now, deleted in the background. */
  stateDeletion: 'done' | 'background';
}

/** What {@link registerConnection} did: stored the connection, or found it stored already. */
export interface ConnectionRegistration {
  /** The connection as stored now (never its token). */
  connection: ConnectionView;
  /** False: the same definition was stored already (an add retried), and nothing changed. */
  created: boolean;
}

/**
 * Registers a connection: seals its AccessToken and stores it enabled. Idempotent: an add of
 * the same definition as the stored one (id, settings and AccessToken; a retry of an add that
 * landed) answers the stored connection as it now is, with `created: false`, changing nothing.
 * The answer never carries the token.
 * @throws ConnectionExistsError when the id is taken by a different definition (naming what
 * differs), ConnectionReadOnlyError when the environment defines it.
 */
export async function registerConnection(
  input: AddConnectionInput,
  deps: ConnectionAdminDeps,
): Promise<ConnectionRegistration> {
  if (deps.configured.some((connection) => connection.id === input.id)) {
    throw new ConnectionReadOnlyError(
      `connection ${input.id} is defined by the CONNECTOR_* variables; choose another id`,
    );
  }
  const { accessToken, interval, id, ...rest } = input;
  const settings = { ...rest, ...(interval !== undefined ? { intervalMs: interval } : {}) };
  const stored: StoredConnection = {
    id,
    ...settings,
    enabled: true,
    createdAt: new Date(deps.clock.now()).toISOString(),
    accessToken: await deps.cipher.seal(id, accessToken),
  };
  // Removed between the refusal and the read, the id is free again: one more try takes it.
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.store.create(stored);
      break;
    } catch (error) {
      if (!(error instanceof ConnectionExistsError)) throw error;
      const existing = await takenBy(id, deps.store, error);
      if (!existing && attempt < 2) continue;
      if (!existing) throw error;
      await assertSameDefinition(existing, { settings, accessToken }, deps.cipher);
      return {
        connection: toConnectionView(existing, deps.notPolledBecause?.(existing)),
        created: false,
      };
    }
  }
  await deps.onChange?.(id);
  return { connection: toConnectionView(stored), created: true };
}

/**
 * The stored connection whose id refused an add (`refusal`); undefined when it is gone since.
 * @throws the refusal when the stored item cannot be read (it cannot be compared).
 */
async function takenBy(
  id: string,
  store: ConnectionStore,
  refusal: ConnectionExistsError,
): Promise<StoredConnection | undefined> {
  try {
    return await store.get(id);
  } catch (error) {
    if (error instanceof ValidationError) throw refusal;
    throw error;
  }
}

/**
 * Registers a connection as {@link registerConnection} does, answering the connection alone.
 * @throws ConnectionExistsError when the id is taken by a different definition.
 */
export async function addConnection(
  input: AddConnectionInput,
  deps: ConnectionAdminDeps,
): Promise<ConnectionView> {
  return (await registerConnection(input, deps)).connection;
}

/** Every connection: the environment's first, then the stored ones by id. */
export async function listConnectionViews(deps: ConnectionAdminDeps): Promise<ConnectionView[]> {
  const stored = await listAllConnections(deps.store);
  return [
    ...deps.configured,
    ...stored.map((c) => toConnectionView(c, deps.notPolledBecause?.(c))),
  ];
}

/**
 * One connection, with its parked streams (one query of its stream states).
 * @throws ConnectionNotFoundError
 */
export async function getConnectionView(
  id: string,
  deps: ConnectionAdminDeps,
): Promise<ConnectionDetail> {
  const view =
    deps.configured.find((connection) => connection.id === id) ?? (await storedView(id, deps));
  const states = await deps.state.listStreams({ connectionId: id });
  return { ...view, parkedStreams: parkedStreamsOf(states) };
}

/** The view of stored connection `id`. @throws ConnectionNotFoundError */
async function storedView(id: string, deps: ConnectionAdminDeps): Promise<ConnectionView> {
  const stored = await deps.store.get(id);
  if (!stored) throw new ConnectionNotFoundError(`connection ${id} does not exist`);
  return toConnectionView(stored, deps.notPolledBecause?.(stored));
}

/**
 * Turns polling of a connection on or off; its stream state stays.
 * @throws ConnectionNotFoundError, ConnectionReadOnlyError for the environment's connection.
 */
export async function setConnectionEnabled(
  id: string,
  enabled: boolean,
  deps: ConnectionAdminDeps,
): Promise<ConnectionView> {
  assertStored(id, deps);
  const updated = await deps.store.setEnabled(id, enabled);
  if (!updated) throw new ConnectionNotFoundError(`connection ${id} does not exist`);
  await deps.onChange?.(id);
  return toConnectionView(updated, deps.notPolledBecause?.(updated));
}

/**
 * Removes a connection: polling stops (disabled first, then a running AWS job of it waited
 * for, see {@link REMOVE_JOB_WAIT_MS}), then its streams' state, snapshots and leases go
 * (unless `keepState`; told first to `beforeStreamsDeleted`): at once, or with `stateRemoval:
 * 'background'` as tombstones the background purge empties (see removeStream), then the
 * connection with its sealed token. Cut off halfway, running it again finishes it.
 * @throws ConnectionNotFoundError, ConnectionReadOnlyError for the environment's connection,
 * ConnectionBusyError when a job still holds it after the wait (without `keepState`).
 */
export async function removeConnection(
  id: string,
  options: { keepState: boolean },
  deps: ConnectionAdminDeps,
): Promise<ConnectionRemoval> {
  assertStored(id, deps);
  const registeredAt = await disableForRemoval(id, deps.store);
  await deps.onChange?.(id);
  // A removal slow enough to be given up on and run again must not, when it goes on, delete
  // the connection added again meanwhile, nor the state of its streams.
  const stillThisOne = async () => {
    const stored = await deps.store.get(id).catch(unlessUnreadable);
    return stored === undefined || registeredAt === undefined || stored.createdAt === registeredAt;
  };
  let streamsDeleted = 0;
  const removal = deps.stateRemoval ?? 'now';
  // A running job (AWS) would go on polling with the removed token, and a page it is storing
  // would land after the state was deleted: the removal takes the connection's job lease first,
  // once that job has stopped. Keeping the state, it goes on without it after the wait (a job
  // killed at its timeout leaves its lease until it expires, and writes nothing).
  const lease = connectionLeaseId(id);
  const owner = `remove:${id}@${registeredAt ?? ''}`;
  const held = await holdJobLease(id, lease, owner, deps, !options.keepState);
  try {
    if (!options.keepState) {
      const streams = await deps.state.listStreams({ connectionId: id });
      if (streams.length > 0) await deps.beforeStreamsDeleted?.(streams);
      for (const stream of streams) {
        if (!(await stillThisOne())) break;
        await removeStream(deps.state, stream, deps.clock.now(), removal);
        // A tombstone of an earlier removal (noted again, in case that one was cut off) is no stream.
        if (!isRemovedStream(stream)) streamsDeleted += 1;
      }
    }
  } finally {
    if (held) await deps.state.releaseLease(lease, owner);
  }
  await deps.store.remove(id, registeredAt);
  await deps.onChange?.(id);
  return {
    id,
    removed: true,
    streamsDeleted,
    stateDeletion: !options.keepState && removal === 'background' ? 'background' : 'done',
  };
}

/**
 * Takes the job lease of connection `id` (disabled already), waiting up to
 * {@link REMOVE_JOB_WAIT_MS} for a running job to stop and release it; false when it is still
 * held then and `required` is false.
 * @throws ConnectionBusyError when it is still held then and `required` (run the removal again later).
 */
async function holdJobLease(
  id: string,
  lease: string,
  owner: string,
  deps: ConnectionAdminDeps,
  required: boolean,
): Promise<boolean> {
  const giveUpAt = deps.clock.now() + REMOVE_JOB_WAIT_MS;
  for (;;) {
    if (await deps.state.acquireLease(lease, owner, REMOVAL_LEASE_TTL_MS, deps.clock.now()))
      return true;
    if (deps.clock.now() >= giveUpAt && !required) return false;
    if (deps.clock.now() >= giveUpAt)
      throw new ConnectionBusyError(
        `connection ${id} is disabled, but a poll job of it is still running: run the removal again in a minute`,
      );
    await deps.clock.sleep(REMOVE_JOB_RETRY_MS);
  }
}

/**
 * Disables connection `id` before its removal; its registration (`createdAt`), or undefined
 * for an item that cannot be read (listings leave it out and report it: removing it is how it
 * goes away, so it is removed as it is).
 * @throws ConnectionNotFoundError when there is no such connection.
 */
async function disableForRemoval(id: string, store: ConnectionStore): Promise<string | undefined> {
  try {
    const disabled = await store.setEnabled(id, false);
    if (!disabled) throw new ConnectionNotFoundError(`connection ${id} does not exist`);
    return disabled.createdAt;
  } catch (error) {
    return unlessUnreadable(error);
  }
}

/** Undefined for the ValidationError of an unreadable stored item; anything else is thrown again. */
function unlessUnreadable(error: unknown): undefined {
  if (error instanceof ValidationError) return undefined;
  throw error;
}

function assertStored(id: string, deps: ConnectionAdminDeps): void {
  if (deps.configured.some((connection) => connection.id === id)) {
    throw new ConnectionReadOnlyError(
      `connection ${id} is defined by the CONNECTOR_* variables: change them and restart instead`,
    );
  }
}
