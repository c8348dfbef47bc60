import type { z } from 'zod';
import { BridgeError } from '../errors.ts';
import type { AdminDeps } from './admin-deps.ts';

/** HTTP methods the admin API serves. */
export type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A framework-free request: what both the node:http server and the Lambda handler hand over. */
export interface AdminRequest {
  method: string;
  /** Path without query string, e.g. `/subscriptions/sub_1`. */
  path: string;
  /** Query parameters (a repeated parameter: its first value). */
  query: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, or `undefined` when the request had none. */
  body: unknown;
}

/** What the router answers; `body` is absent for 204. */
export interface AdminResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What a route handler returns: a status and a body matching the route's response schema.
 * `headers` with a `content-type` send a text body as it is (see serializeAdminBody).
 */
export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Validated input of a route handler. `id` is the `{id}` path segment ('' for routes without one). */
export interface RouteInput<Q, B> {
  id: string;
  query: Q;
  body: B;
}

/** What a route answers on success, as the OpenAPI document shows it. */
export interface RouteSuccess {
  status: number;
  /** The body's schema; absent: no body. */
  schema?: z.ZodType;
  /** Defaults to JSON. */
  mediaType?: string;
  /** Another success status with the same body, and when it is answered. */
  also?: { status: number; description: string };
}

/** A route as the router and the OpenAPI generator see it (types erased). */
export interface AdminRoute {
  method: AdminMethod;
  /** Path template; `{id}` matches one segment. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Query schema; `EmptySchema` when the route takes none. */
  query: z.ZodObject;
  /** Body schema; `EmptySchema` when the route takes none. */
  body: z.ZodType;
  /** Status and schema of the success response (no schema: no body); `mediaType` defaults to JSON. */
  success: RouteSuccess;
  /**
   * Validates the query, then the body (an absent body counts as `{}`), and runs the handler.
   * @throws RouteInputError on invalid input; whatever the handler throws otherwise.
   */
  invoke(request: AdminRequest, id: string, deps: AdminDeps): Promise<RouteResult>;
}

/** Input validation failed; `location` says whether in the query or the body. */
export class RouteInputError extends Error {
  override name = 'RouteInputError';
  constructor(
    readonly location: 'query' | 'body',
    readonly error: z.ZodError,
  ) {
    super(`invalid ${location}`);
  }
}

/** Definition of one route with typed, validated inputs. */
export interface RouteSpec<Q extends z.ZodObject, B extends z.ZodType> {
  method: AdminMethod;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Query schema (`EmptySchema` for none). */
  query: Q;
  /** Body schema (`EmptySchema` for none). */
  body: B;
  success: RouteSuccess;
  handle(input: RouteInput<z.output<Q>, z.output<B>>, deps: AdminDeps): Promise<RouteResult>;
}

/**
 * Declares a route. Its query and body schemas validate requests and feed the OpenAPI
 * document, so what is documented is what is enforced.
 * @example defineRoute({ method: 'GET', path: '/health', operationId: 'getHealth', summary: 'Liveness', tag: 'meta', query: EmptySchema, body: EmptySchema, success: { status: 200, schema: HealthSchema }, handle: async () => ({ status: 200, body: { status: 'ok' } }) })
 */
export function defineRoute<Q extends z.ZodObject, B extends z.ZodType>(
  spec: RouteSpec<Q, B>,
): AdminRoute {
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    tag: spec.tag,
    query: spec.query,
    body: spec.body,
    success: spec.success,
    invoke(request, id, deps) {
      const query = spec.query.safeParse(request.query);
      if (!query.success) throw new RouteInputError('query', query.error);
      // A POST without fields may come with no body at all.
      const body = spec.body.safeParse(request.body ?? {});
      if (!body.success) throw new RouteInputError('body', body.error);
      return spec.handle({ id, query: query.data, body: body.data }, deps);
    },
  };
}

/**
 * The request conflicts with the current state (e.g. a disabled subscription); answered with
 * 409, with `fields` (the request's fields the conflict is about, as the message names them)
 * when given.
 */
export class AdminConflictError extends BridgeError {
  override name = 'AdminConflictError';
  readonly fields: readonly string[] | undefined;

  constructor(message: string, options: { cause?: unknown; fields?: readonly string[] } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.fields = options.fields;
  }
}

/** A stream or backfill job that does not exist; answered with 404. */
export class AdminNotFoundError extends BridgeError {
  override name = 'AdminNotFoundError';
}
