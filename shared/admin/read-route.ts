import type { z } from 'zod';
import type { AdminDeps } from './admin-deps.ts';
import { type AdminRoute, defineRoute } from './route.ts';
import { EmptySchema } from './schemas.ts';

/** Definition of a plain read: a GET without query or body that answers 200 with `read`'s value. */
export interface ReadRouteSpec {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Schema of the 200 response's body. */
  schema: z.ZodType;
  /** The response body; `id` is the `{id}` path segment ('' for a path without one). */
  read(id: string, deps: AdminDeps): Promise<unknown>;
}

/**
 * Declares a plain read with {@link defineRoute}: method GET, `EmptySchema` for query and body
 * (any parameter or body is refused with 400), and a 200 whose body is what `read` returns.
 * @example defineReadRoute({ path: '/events/{id}', operationId: 'getEvent', summary: 'One stored event', tag: 'events', schema: StoredEventBodySchema, read: (id, deps) => deps.webhooks.getEvent(id) })
 */
export function defineReadRoute(spec: ReadRouteSpec): AdminRoute {
  return defineRoute({
    method: 'GET',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    tag: spec.tag,
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 200, schema: spec.schema },
    handle: async ({ id }, deps) => ({ status: 200, body: await spec.read(id, deps) }),
  });
}
