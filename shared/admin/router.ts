import { ValidationError } from '../errors.ts';
import { withPlainMessages } from '../plain-message.ts';
import { WebhookNotFoundError, WebhookUrlUndecidedError } from '../webhooks/subscription-admin.ts';
import { SubscriptionWriteConflictError } from '../webhooks/subscription-change.ts';
import type { AdminDeps } from './admin-deps.ts';
import { firstInputIssue } from './input-issue.ts';
import {
  AdminConflictError,
  AdminNotFoundError,
  type AdminRequest,
  type AdminResponse,
  type AdminRoute,
  RouteInputError,
} from './route.ts';
import { ADMIN_ROUTES } from './routes.ts';
import { ID_MAX_LENGTH } from './schemas.ts';

/**
 * The longest `{id}` any route serves: every id the bridge gives is far shorter (a stream id
 * is at most 64 + 1 + 35 characters), and the store refuses keys over 1 KB, so a longer one
 * names nothing: 404, not a store error. The same as an id in a query or body takes.
 */
export const PATH_ID_MAX_LENGTH = ID_MAX_LENGTH;

/** The `{id}` segment of `path` when it fits `template` (and {@link PATH_ID_MAX_LENGTH}), '' for a template without one, undefined otherwise. */
export function matchPath(template: string, path: string): string | undefined {
  const want = template.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  let id = '';
  for (const [index, part] of want.entries()) {
    const segment = have[index]!;
    if (part === '{id}') {
      if (segment === '') return undefined;
      try {
        id = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
      if (id.length > PATH_ID_MAX_LENGTH) return undefined;
    } else if (part !== segment) return undefined;
  }
  return id;
}

/** The `Retry-After` of a 503 for a subscription URL that could not be checked (seconds). */
const URL_UNDECIDED_RETRY_AFTER_SECONDS = 5;

function errorResponse(error: unknown, request: AdminRequest, deps: AdminDeps): AdminResponse {
  if (error instanceof RouteInputError) {
    // In plain words (`must be baseline or emit`), never zod's own (`Invalid option: …`).
    const { field, message } = firstInputIssue(withPlainMessages(error.error), error.location);
    return { status: 400, body: { error: `${field}: ${message}`, field } };
  }
  if (error instanceof ValidationError) {
    return {
      status: 400,
      body: { error: error.message, ...(error.path ? { field: error.path } : {}) },
    };
  }
  // A URL whose host's name server did not answer is no invalid input: try again shortly.
  if (error instanceof WebhookUrlUndecidedError) {
    return {
      status: 503,
      headers: { 'retry-after': String(URL_UNDECIDED_RETRY_AFTER_SECONDS) },
      body: { error: error.message, field: error.field },
    };
  }
  if (error instanceof WebhookNotFoundError || error instanceof AdminNotFoundError) {
    return { status: 404, body: { error: error.message } };
  }
  // A subscription other processes kept changing while this change was written: try again.
  if (error instanceof AdminConflictError && error.fields !== undefined)
    return { status: 409, body: { error: error.message, fields: [...error.fields] } };
  if (error instanceof AdminConflictError || error instanceof SubscriptionWriteConflictError)
    return { status: 409, body: { error: error.message } };
  // Anything else is ours: log it for the operator, say nothing of it to the caller.
  reportAdminError(deps, error, { method: request.method, path: request.path });
  return { status: 500, body: { error: 'internal error' } };
}

/**
 * Tells `deps.onError` about an error answered with 500. Never throws: a reporter that fails
 * (a log line that cannot be written, a message read off a thrown non-Error) is dropped, so the
 * 500 still goes out and no rejection escapes the server (under Node's defaults one ends it).
 */
export function reportAdminError(
  deps: Pick<AdminDeps, 'onError'>,
  error: unknown,
  request: { method: string; path: string },
): void {
  try {
    deps.onError?.(error, request);
  } catch {
    // Nowhere left to report it: the reporter is what failed.
  }
}

/**
 * Serves one admin API request: finds the route, validates query and body with zod, runs
 * it (HEAD runs the GET route; the server sending the answer drops its body), and maps
 * failures to JSON errors: 400 `{ error, field }` for invalid input, 404 for unknown paths
 * (paths match exactly: `/events/` is unknown) and ids, 405 (with `allow`) for a wrong
 * method, 409 for a disabled subscription (or one other processes kept changing meanwhile), 503
 * (with `retry-after`) for a subscription URL whose host could not be looked up for now, 500 `{ error: 'internal error' }` otherwise.
 * Never throws.
 * @example await handleAdminRequest({ method: 'GET', path: '/streams', query: {}, body: undefined }, deps)
 */
export async function handleAdminRequest(
  request: AdminRequest,
  deps: AdminDeps,
  routes: readonly AdminRoute[] = ADMIN_ROUTES,
): Promise<AdminResponse> {
  // A trailing slash is not stripped: `/events/` names no route (404) like any unknown path.
  const { path } = request;
  const method = request.method.toUpperCase();
  const candidates = routes.flatMap((route) => {
    const id = matchPath(route.path, path);
    return id === undefined ? [] : [{ route, id }];
  });
  if (candidates.length === 0) {
    return { status: 404, body: { error: `no route ${method} ${path}` } };
  }
  // HEAD is GET without the body (RFC 9110, 9.3.2): the server sending the answer leaves it out.
  const served = method === 'HEAD' ? 'GET' : method;
  const hit = candidates.find((candidate) => candidate.route.method === served);
  if (!hit) {
    // HEAD is answered wherever GET is (above), so `allow` lists it too (RFC 9110, 10.2.1).
    const methods = candidates.flatMap(({ route }) =>
      route.method === 'GET' ? ['GET', 'HEAD'] : [route.method],
    );
    const allow = [...new Set(methods)].join(', ');
    return {
      status: 405,
      body: { error: `${method} is not allowed on ${path} (allowed: ${allow})` },
      headers: { allow },
    };
  }
  try {
    const result = await hit.route.invoke(request, hit.id, deps);
    return {
      status: result.status,
      ...(result.body !== undefined ? { body: result.body } : {}),
      ...(result.headers !== undefined ? { headers: result.headers } : {}),
    };
  } catch (error) {
    return errorResponse(error, request, deps);
  }
}
