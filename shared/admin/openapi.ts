import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { ConnectorErrorBodySchema } from '../connector/records/common.ts';
import type { AdminAuthentication } from './admin-deps.ts';
import type { AdminRoute } from './route.ts';
import { EmptySchema, ErrorBodySchema } from './schemas.ts';

/** A JSON Schema (2020-12) object as OpenAPI 3.1 embeds it. */
export type JsonSchemaObject = Record<string, unknown>;

/** Title and version in the document's `info`. */
export const OPENAPI_INFO = {
  title: 'change-bridge admin API',
  version: packageJson.version,
} as const;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** Any other error an operation answers: what `default` points at. */
const ERROR_RESPONSE_REF = { $ref: '#/components/responses/Error' };

/** The security scheme of the local admin API's bearer token. */
const ADMIN_TOKEN_SCHEME = 'adminToken';

/** The security scheme of the admin API behind API Gateway: IAM, requests signed with SigV4. */
const SIGV4_SCHEME = 'sigv4';

const GATEWAY_ERROR_REF = { $ref: '#/components/schemas/GatewayError' };

const IAM_REFUSAL =
  'API Gateway (IAM): the request is not signed, or its principal may not call execute-api:Invoke on this API';
const FOREIGN_CALLER = 'A foreign Host or Origin';
const CROSS_SITE =
  'a write a browser sent for another site (`Sec-Fetch-Site`) or from a page not on loopback (`Origin`)';

/** The console's page and assets: the local API serves them without the token (they hold no data). */
function isConsolePage(route: AdminRoute): boolean {
  return route.operationId === 'getConsole' || route.operationId === 'getConsoleAsset';
}

/**
 * The JSON Schema of a zod schema, as requests send it (`input`: before defaults and
 * transforms) or as responses carry it (`output`), without `$schema` (OpenAPI 3.1 sets the
 * dialect for the whole document).
 */
export function toOpenApiSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
  });
  return rest;
}

const CONNECTOR_ERROR_REF = { $ref: '#/components/schemas/ConnectorError' };

/** The bridge's own error or the connector's, passed through (the two may overlap: anyOf). */
const EITHER_ERROR = { anyOf: [ERROR_REF, CONNECTOR_ERROR_REF] };

function errorResponse(description: string, schema: JsonSchemaObject = ERROR_REF) {
  return { description, content: { 'application/json': { schema } } };
}

const PASSED_THROUGH =
  "the connector's error, passed through unchanged (`{Message, RequestId, Details}`)";

/**
 * The connector proxy's error statuses: the connector's own (connector-api.md, Errors, with
 * design.md's statuses) come back unchanged; 400, 401, 403 and 500 may be the bridge's too.
 */
function connectorErrorResponses(
  operationId: string,
  authentication: AdminAuthentication,
): Record<string, unknown> {
  const refused = `${PASSED_THROUGH}: the connection's tokens were refused`;
  const validation = `${PASSED_THROUGH}: server-side validation, e.g. an email another customer uses`;
  const unwritable = 'The connection named is disabled, or its token does not open (`{error}`)';
  return {
    // connector-api.md, Errors: the conflict error is listed only for restrictions/clear.
    '409':
      operationId === 'connectorRestrictionsClear'
        ? errorResponse(`${unwritable}, or Conflict: ${PASSED_THROUGH}`, EITHER_ERROR)
        : errorResponse(unwritable),
    '400': errorResponse(
      `The body refused by the bridge before anything is sent (\`{error, field}\`), or ${PASSED_THROUGH}: a client error`,
      EITHER_ERROR,
    ),
    '401':
      authentication === 'bearer'
        ? errorResponse(
            `Bearer token (BRIDGE_ADMIN_TOKEN) missing or wrong (\`{error}\`), or ${refused}`,
            EITHER_ERROR,
          )
        : errorResponse(`Authorization error: ${refused}`, CONNECTOR_ERROR_REF),
    '403':
      authentication === 'iam'
        ? errorResponse(
            `${IAM_REFUSAL} (\`{message}\`), ${CROSS_SITE} (\`{error}\`), or ${validation}`,
            {
              anyOf: [GATEWAY_ERROR_REF, ERROR_REF, CONNECTOR_ERROR_REF],
            },
          )
        : errorResponse(`${FOREIGN_CALLER} (\`{error}\`), or ${validation}`, EITHER_ERROR),
    '408': errorResponse(`Timeout: ${PASSED_THROUGH}`, CONNECTOR_ERROR_REF),
    '429': {
      ...errorResponse(
        `Too many requests: ${PASSED_THROUGH}, or not sent (\`{error}\`): the token's connector budget had no slot before the answer was due`,
        EITHER_ERROR,
      ),
      headers: {
        'Retry-After': {
          description:
            "Seconds to wait: the connector's, or, for a call not sent, the rest of the token's pause after the connector's 429 (absent when no pause is known)",
          schema: { type: 'string' },
        },
      },
    },
    '500': errorResponse(
      `Internal error of the bridge (\`{error}\`, details logged), or ${PASSED_THROUGH}`,
      EITHER_ERROR,
    ),
  };
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: z.ZodObject) {
  if (query === EmptySchema) return [];
  const schema = toOpenApiSchema(query, 'input');
  const properties = z
    .record(z.string(), z.record(z.string(), z.unknown()))
    .parse(schema.properties ?? {});
  const required = z.array(z.string()).parse(schema.required ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    schema: property,
  }));
}

const DISABLED_SUBSCRIPTION = 'The subscription is disabled';
const CHANGED_MEANWHILE =
  'Other processes (admin or dispatcher containers) kept changing the subscription while this change was written: nothing of it was stored, try again';
const ENVIRONMENT_CONNECTION = 'The connection is defined by the CONNECTOR_* variables';

/** What each route that can answer 409 means by it (the routes' own checks). */
const CONFLICTS: Readonly<Record<string, string>> = {
  pingSubscription: DISABLED_SUBSCRIPTION,
  redeliverDeadLetters: DISABLED_SUBSCRIPTION,
  resyncSubscription: DISABLED_SUBSCRIPTION,
  replayEvent: 'The subscription named is disabled',
  updateSubscription: CHANGED_MEANWHILE,
  rotateSecret: CHANGED_MEANWHILE,
  addConnection:
    'The id is taken by a different definition (another setting or AccessToken: the message names which), or by the CONNECTOR_* variables',
  enableConnection: ENVIRONMENT_CONNECTION,
  disableConnection: ENVIRONMENT_CONNECTION,
  removeConnection: `${ENVIRONMENT_CONNECTION}, or (AWS) a poll job of it is still running: the connection is left disabled; remove it again later`,
};

/** Routes that look up a subscription URL's host (url-policy.ts). */
const URL_CHECKS: ReadonlySet<string> = new Set(['createSubscription', 'updateSubscription']);
const URL_UNDECIDED =
  "The URL's host could not be looked up for now (its name server did not answer, or the bridge is stopping): nothing was stored; try again after `retry-after` seconds";

function operationOf(
  route: AdminRoute,
  authentication: AdminAuthentication,
): Record<string, unknown> {
  const success: Record<string, unknown> = {
    description: route.success.schema ? 'Success' : 'Success, no content',
  };
  if (route.success.schema) {
    success.content = {
      [route.success.mediaType ?? 'application/json']: {
        schema: toOpenApiSchema(route.success.schema, 'output'),
      },
    };
  }
  const responses: Record<string, unknown> = {
    [String(route.success.status)]: success,
    ...(route.success.also
      ? {
          [String(route.success.also.status)]: {
            ...success,
            description: route.success.also.description,
          },
        }
      : {}),
    '400': errorResponse('Invalid input: `field` names the offending field'),
  };
  if (route.path.includes('{')) responses['404'] = errorResponse('Unknown id');
  if (route.tag === 'connector') {
    responses['404'] = errorResponse(
      'No such connection (`connectionId` unknown or removed), or none named where there is no default (in AWS, none or several connections of the props)',
    );
  }
  const conflict = CONFLICTS[route.operationId];
  if (conflict) responses['409'] = errorResponse(conflict);
  if (URL_CHECKS.has(route.operationId)) responses['503'] = errorResponse(URL_UNDECIDED);
  const isPage = isConsolePage(route);
  if (authentication === 'iam') {
    // API Gateway refuses unsigned or unauthorized requests itself: the bridge never sees them;
    // the handler refuses what a browser marks as another site's (guardSignedRequest).
    responses['403'] = errorResponse(
      `${IAM_REFUSAL} (\`{message}\`), or ${CROSS_SITE} (\`{error}\`)`,
      {
        anyOf: [GATEWAY_ERROR_REF, ERROR_REF],
      },
    );
  } else {
    // The local server's guard (request-guard.ts).
    if (authentication === 'bearer' && !isPage) {
      responses['401'] = errorResponse('Bearer token (BRIDGE_ADMIN_TOKEN) missing or wrong');
    }
    responses['403'] = errorResponse(FOREIGN_CALLER);
    // The local server checks every request's body this way, a route that takes none included.
    responses['413'] = errorResponse('The body is larger than 1 MB');
  }
  // Both servers check every request's body this way, a route that takes none included.
  responses['415'] = errorResponse(
    route.body !== EmptySchema
      ? 'The body is not sent as content-type: application/json'
      : 'A body sent, not as content-type: application/json (this route takes none)',
  );
  responses['500'] = errorResponse('Internal error (details are logged, never returned)');
  if (route.tag === 'connector') {
    Object.assign(responses, connectorErrorResponses(route.operationId, authentication));
    responses['502'] = errorResponse(
      'The connector did not answer (network, timeout after retries)',
    );
  }
  responses.default = ERROR_RESPONSE_REF;
  const operation: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    // The document's `security` covers the rest; the console's page and assets hold no data.
    ...(authentication === 'bearer' && isPage ? { security: [] } : {}),
    parameters: [...pathParameters(route.path), ...queryParameters(route.query)],
    responses,
  };
  if (route.body !== EmptySchema) {
    operation.requestBody = {
      // A body every field of which is optional may be left out.
      required: !route.body.safeParse({}).success,
      content: { 'application/json': { schema: toOpenApiSchema(route.body, 'input') } },
    };
  }
  return operation;
}

/** API Gateway's own error body (its refusals never reach the bridge). */
const GATEWAY_ERROR_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  description: "API Gateway's own answer, e.g. `{message: 'Forbidden'}`",
};

function securitySchemes(authentication: AdminAuthentication): Record<string, unknown> {
  if (authentication === 'iam') {
    return {
      [SIGV4_SCHEME]: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        'x-amazon-apigateway-authtype': 'awsSigv4',
        description:
          'IAM authorization: every request is signed with SigV4 for the execute-api service by a principal allowed execute-api:Invoke on this API (e.g. awscurl --service execute-api)',
      },
    };
  }
  return {
    [ADMIN_TOKEN_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description:
        authentication === 'bearer'
          ? 'BRIDGE_ADMIN_TOKEN of the local API (`change-bridge start`), as `authorization: Bearer …`: required by every route but the console page and assets. A bridge on loopback without BRIDGE_ADMIN_TOKEN takes no token.'
          : 'BRIDGE_ADMIN_TOKEN of the local API (`change-bridge start`), as `authorization: Bearer …`. This bridge listens on loopback without BRIDGE_ADMIN_TOKEN and takes no token: no operation requires it. Set BRIDGE_ADMIN_TOKEN (required off loopback) and every route but the console page and assets does.',
    },
  };
}

/**
 * The OpenAPI 3.1 document of the admin API, generated from the routes' zod schemas: the
 * same schemas validate requests, so the document cannot drift from the behaviour.
 * `authentication` is how this API's callers authenticate (the served document tells the truth
 * of the running configuration): its security and the guard's statuses (401, 403, 413, 415).
 * @example buildOpenApiDocument(ADMIN_ROUTES, 'bearer').paths['/subscriptions'].post.operationId // 'createSubscription'
 */
export function buildOpenApiDocument(
  routes: readonly AdminRoute[],
  authentication: AdminAuthentication,
): JsonSchemaObject {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route, authentication);
  }
  return {
    openapi: '3.1.0',
    info: {
      ...OPENAPI_INFO,
      description:
        'Subscriptions, events, deliveries, streams, connections and backfills of change-bridge. The same routes run in `change-bridge start` and behind API Gateway. Every error the bridge answers is JSON `{error}` (a 400 adds `field`). Paths match exactly: a path this document does not list, one with a trailing slash included, is answered 404, and a method a path does not take 405 with an `allow` header listing those it does; both are the `Error` response.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    ...(authentication === 'bearer' ? { security: [{ [ADMIN_TOKEN_SCHEME]: [] }] } : {}),
    ...(authentication === 'iam' ? { security: [{ [SIGV4_SCHEME]: [] }] } : {}),
    paths,
    components: {
      schemas: {
        Error: toOpenApiSchema(ErrorBodySchema, 'output'),
        ConnectorError: {
          ...toOpenApiSchema(ConnectorErrorBodySchema, 'output'),
          description:
            "The Connector API's error body (ConnectorApiExceptionResult), as the connector proxy passes it through",
        },
        ...(authentication === 'iam' ? { GatewayError: GATEWAY_ERROR_SCHEMA } : {}),
      },
      responses: {
        Error: errorResponse(
          'An error: any status an operation does not list, an unknown path (404) or a method its path does not take (405, with `allow`)',
        ),
      },
      securitySchemes: securitySchemes(authentication),
    },
  };
}
