import { z } from 'zod';
import { EntityTypeSchema } from '../changes/entity-types.ts';
import { PortfolioScopeSchema } from '../connector/connector-config.ts';

/**
 * A connection id: letters, digits, `_` and `-`, 1 to 64 characters. It is the first part of
 * every stream id (`<connectionId>:<entityType>`) and of the event `source`.
 */
export const ConnectionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ or -' });

/**
 * Refuses the id `connection` for a new connection (added at run time or a CDK props one): its
 * streams' ids (`connection:customer`) would be the job leases of other connections
 * (`connection:<id>`), and removing or resetting one would drop another's lease. Stored
 * connections are not re-checked, so one stored before stays readable.
 */
export function withoutReservedId<T extends z.ZodType<string>>(schema: T) {
  return schema.refine((id) => id !== 'connection', {
    error: 'connection is reserved: choose another id',
  });
}

/** Why `text` is no stream id (`<connectionId>:<entityType>`), or undefined when it is one. */
function streamIdProblem(text: string): string | undefined {
  if (!text.includes(':')) return 'must be <connectionId>:<entityType>, e.g. local:customer';
  const { connectionId, entityType } = splitStreamId(text);
  if (!ConnectionIdSchema.safeParse(connectionId).success)
    return `${connectionId || '(empty)'} is not a connection id (1 to 64 letters, digits, _ or -)`;
  if (!EntityTypeSchema.safeParse(entityType).success)
    return `${entityType || '(empty)'} is not an entity type (one of ${EntityTypeSchema.options.join(', ')})`;
  return undefined;
}

/**
 * A stream id: `<connectionId>:<entityType>`, e.g. `local:customer` (a connection id has no
 * colon, so the first one splits it).
 */
export const StreamIdSchema = z.string().superRefine((text, context) => {
  const problem = streamIdProblem(text);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * The parts of a stream id: the connection id before the first colon, the entity type after.
 * Pure; does not check the parts (see {@link StreamIdSchema}).
 * @example splitStreamId('chain-eu:customer') // { connectionId: 'chain-eu', entityType: 'customer' }
 */
export function splitStreamId(streamId: string): { connectionId: string; entityType: string } {
  const colon = streamId.indexOf(':');
  if (colon < 0) return { connectionId: streamId, entityType: '' };
  return { connectionId: streamId.slice(0, colon), entityType: streamId.slice(colon + 1) };
}

/**
 * An AccessToken sealed with envelope encryption (AES-256-GCM): the token encrypted under a
 * data key, and the data key encrypted (wrapped) by the key provider (KMS in AWS, the data
 * dir's key file locally). All binary fields are base64.
 */
export const SealedTokenSchema = z.object({
  /** Format version of the envelope. */
  v: z.literal(1),
  /** The data key as the key provider wrapped it. */
  wrappedKey: z.string().min(1),
  /** 12-byte GCM nonce. */
  iv: z.string().min(1),
  /** 16-byte GCM authentication tag. */
  tag: z.string().min(1),
  ciphertext: z.string().min(1),
});
/** An AccessToken sealed with envelope encryption. */
export type SealedToken = z.infer<typeof SealedTokenSchema>;

/**
 * What a connection polls and how; everything but its AccessToken. Absent optional fields
 * follow the deployment's settings (POLL_ENTITIES, POLL_INTERVAL, INITIAL_SYNC).
 */
export const ConnectionSettingsSchema = z.object({
  /** Chain or enterprise ids when the AccessToken is a Portfolio Access Token. */
  portfolioScope: PortfolioScopeSchema.optional(),
  entities: z.array(EntityTypeSchema).min(1).optional(),
  /** Poll interval of every stream of the connection, in ms. */
  intervalMs: z.number().int().min(100).optional(),
  initialSync: z.enum(['baseline', 'emit']).optional(),
  /** Products whose prices are followed (productPrice stream), `id` or `id@Time/Zone`. */
  productIds: z.array(z.string().min(1)).optional(),
  /** Exports followed (export stream). */
  exportIds: z.array(z.string().min(1)).optional(),
});
/** What a connection polls and how. */
export type ConnectionSettings = z.infer<typeof ConnectionSettingsSchema>;

/** A connection as every answer shows it: never with its AccessToken. */
export const ConnectionViewSchema = ConnectionSettingsSchema.extend({
  id: ConnectionIdSchema,
  enabled: z.boolean(),
  /** ISO instant of registration. */
  createdAt: z.string(),
  /** `store`: added at run time; `environment`: the CONNECTOR_* variables (read-only). */
  origin: z.enum(['store', 'environment']),
  /**
   * Why an enabled connection is not polled, when it is not: its AccessToken does not open
   * (locally, the data dir's connections.key was replaced since the token was added).
   */
  error: z.string().optional(),
});
/** A connection as answers show it. */
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

/** A connection as the connection store keeps it: the view's fields and the sealed token. */
export const StoredConnectionSchema = ConnectionSettingsSchema.extend({
  id: ConnectionIdSchema,
  enabled: z.boolean(),
  createdAt: z.string(),
  accessToken: SealedTokenSchema,
  /**
   * Epoch ms when its earliest stream is next due, written by the AWS poller after each job,
   * so the planner reads connections, not every stream state, to find due work.
   */
  nextDueAt: z.number().int().optional(),
});
/** A connection as the connection store keeps it. */
export type StoredConnection = z.infer<typeof StoredConnectionSchema>;

/**
 * The view of a stored connection: the sealed token is left out; `error` says why it is not
 * polled, when it is enabled and is not.
 */
export function toConnectionView(connection: StoredConnection, error?: string): ConnectionView {
  const { accessToken: _sealed, nextDueAt: _due, ...view } = connection;
  return { ...view, origin: 'store', ...(error !== undefined && view.enabled ? { error } : {}) };
}

/**
 * What identifies one registration of a stored connection: one removed and added again is a
 * new one (its client and token opened anew). Pure.
 * @example registrationKey({ id: 'hotel-1', createdAt: '2026-01-01T00:00:00.000Z' }) === 'hotel-1@2026-01-01T00:00:00.000Z'
 */
export function registrationKey(connection: Pick<StoredConnection, 'id' | 'createdAt'>): string {
  return `${connection.id}@${connection.createdAt}`;
}
