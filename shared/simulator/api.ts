import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { readByOrdinaryToken } from '../connector/ignored-scope.ts';
import { fullRequestSchema, OPERATIONS, type OperationName } from '../connector/operations.ts';
import { PORTFOLIO_OPERATIONS } from '../connector/portfolio-operations.ts';
import { fieldIssues } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import type { BoundedLog } from './bounded-log.ts';
import { lowercaseGuids } from './canonical-ids.ts';
import { advanceExports } from './export-lifecycle.ts';
import type { FaultInjector, FaultKind } from './faults.ts';
import { HANDLERS } from './handlers.ts';
import { errorBody, readBody, SIM_BODY_TOO_LARGE_MESSAGE, sendJson } from './http-util.ts';
import type { SimModel } from './model.ts';
import { SimApiError, type TokenScope, withoutEnvelope } from './query.ts';
import type { RateDecision, SimRateLimiter } from './rate-limit.ts';
import type { RequestLogEntry } from './request-log.ts';
import { parseKnownFields } from './unknown-fields.ts';

/** The three tokens the simulator accepts. */
export interface SimTokens {
  clientToken: string;
  accessToken: string;
  portfolioToken: string;
}

/** Everything an `/api/` request needs. */
export interface ApiState {
  model: SimModel;
  tokens: SimTokens;
  /** AccessToken to the one enterprise it is scoped to (every enterprise has its own). */
  enterpriseOfToken: ReadonlyMap<string, string>;
  limiter: SimRateLimiter;
  faults: FaultInjector;
  /** The newest answered requests (see SIM_REQUEST_LOG_MAX_ENTRIES). */
  log: BoundedLog<RequestLogEntry>;
}

interface Outcome {
  status: number;
  text: string;
  headers?: Record<string, string>;
  items: number | null;
  count: number | null;
  /** The enterprise of the AccessToken, once it is known (see RequestLogEntry). */
  enterpriseId?: string | null;
}

const FAULT_ANSWERS: Partial<Record<FaultKind, { status: number; message: string }>> = {
  timeout: { status: 408, message: 'The request took too long; request smaller batches.' },
  internal: { status: 500, message: 'Unexpected failure on the server side.' },
  conflict: { status: 409, message: 'Data changed meanwhile; refresh client data and resubmit.' },
};

function scopeOf(state: ApiState, token: unknown): TokenScope | null {
  const world = state.model.world;
  // Each AccessToken stands for its own enterprise (and its chain); the Portfolio Access Token
  // for every enterprise and chain.
  const enterpriseId = typeof token === 'string' ? state.enterpriseOfToken.get(token) : undefined;
  if (enterpriseId !== undefined) {
    const chainId = state.model.chainOf(enterpriseId);
    return { portfolio: false, chainIds: [chainId], enterpriseIds: [enterpriseId] };
  }
  if (token === state.tokens.portfolioToken) {
    return {
      portfolio: true,
      chainIds: world.chainIds,
      enterpriseIds: world.enterprises.map((e) => e.Id),
    };
  }
  return null;
}

function primaryItems(name: OperationName, result: unknown): number | null {
  if (!isJsonObject(result)) return null;
  const spec = OPERATIONS[name];
  const key =
    spec.pagination?.itemsKey ?? Object.keys(result).find((k) => Array.isArray(result[k]));
  const value = key === undefined ? undefined : result[key];
  return Array.isArray(value) ? value.length : null;
}

function fail(
  status: number,
  message: string,
  requestId: string,
  details: unknown = null,
): Outcome {
  return { status, text: errorBody(message, requestId, details), items: null, count: null };
}

/** Injected faults that stand for an answer of the service (or a connection it dropped after reading the request). */
const CHARGED_FAULTS: ReadonlySet<FaultKind> = new Set(['timeout', 'internal', 'conflict', 'drop']);

/**
 * Counts a request an injected fault answers against its AccessToken's budget, as the service
 * counts every arrival of an accepted token whatever it answers (design.md facts: 200 requests
 * per AccessToken in any 30 s). Null when the body names no token accepted for the operation
 * (such a request is not counted, as in {@link answer}).
 */
function chargeFaulted(
  state: ApiState,
  name: OperationName,
  text: string,
): { decision: RateDecision; enterpriseId: string | null } | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isJsonObject(raw) || raw.ClientToken !== state.tokens.clientToken) return null;
  const scope = scopeOf(state, raw.AccessToken);
  if (scope === null || (scope.portfolio && !PORTFOLIO_OPERATIONS.has(name))) return null;
  return {
    decision: state.limiter.take(String(raw.AccessToken)),
    enterpriseId: scope.portfolio ? null : (scope.enterpriseIds[0] ?? null),
  };
}

/** Runs authentication, the rate limit, validation and the handler: everything but faults. */
function answer(state: ApiState, name: OperationName, text: string, requestId: string): Outcome {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail(400, 'The request body is not valid JSON.', requestId);
  }
  if (!isJsonObject(raw)) return fail(400, 'The request body must be a JSON object.', requestId);
  const count =
    isJsonObject(raw.Limitation) && typeof raw.Limitation.Count === 'number'
      ? raw.Limitation.Count
      : null;
  const scope = scopeOf(state, raw.AccessToken);
  if (raw.ClientToken !== state.tokens.clientToken || scope === null) {
    return { ...fail(401, 'Invalid ClientToken or AccessToken.', requestId), count };
  }
  if (scope.portfolio && !PORTFOLIO_OPERATIONS.has(name)) {
    return { ...fail(401, `The token has no permission for ${name}.`, requestId), count };
  }
  const enterpriseId = scope.portfolio ? null : (scope.enterpriseIds[0] ?? null);
  return { ...answerInScope(state, name, raw, scope, requestId, count), enterpriseId };
}

/** The rate limit, validation and the handler, for a request whose tokens were accepted. */
function answerInScope(
  state: ApiState,
  name: OperationName,
  raw: Record<string, unknown>,
  scope: TokenScope,
  requestId: string,
  count: number | null,
): Outcome {
  const decision = state.limiter.take(String(raw.AccessToken));
  if (!decision.allowed) {
    return {
      ...fail(429, 'Too many requests.', requestId),
      headers: { 'retry-after': String(decision.retryAfterSeconds) },
      count,
    };
  }
  const schema = fullRequestSchema(name);
  // A field the contract does not name is ignored, at any depth (see parseKnownFields).
  const known = parseKnownFields(schema, raw);
  // Still an object: only keys are left out of it.
  const given = isJsonObject(known.body) ? known.body : raw;
  // An ordinary token's ChainIds (customers/getAll) is ignored: it neither filters the
  // customers nor counts as the filter that spares CustomerIds (connector-api.md #1). Ignored
  // is not unread: one that breaks the contract is refused first, as the client refuses it.
  const read = scope.portfolio ? given : readByOrdinaryToken(OPERATIONS[name], given);
  const parsed = read === given || !known.result.success ? known.result : schema.safeParse(read);
  if (!parsed.success) {
    const issues = fieldIssues(parsed.error).map((issue) => ({
      Path: issue.path,
      Message: issue.message,
    }));
    const message = issues.map((issue) => `${issue.Path || '(body)'}: ${issue.Message}`).join('; ');
    return { ...fail(400, `Invalid request: ${message}`, requestId, { Issues: issues }), count };
  }
  // The records hold GUIDs in lower case; the service reads them in any case.
  const body = withoutEnvelope(lowercaseGuids(OPERATIONS[name].request, read) as typeof read);
  if (
    scope.portfolio &&
    OPERATIONS[name].portfolioScope === 'ChainIds' &&
    body.ChainIds === undefined
  ) {
    return { ...fail(400, 'ChainIds: required with a Portfolio Access Token', requestId), count };
  }
  const timeoutAbove = state.faults.current().timeoutAboveCount;
  if (timeoutAbove !== null && count !== null && count > timeoutAbove) {
    return {
      ...fail(408, 'The request took too long; request smaller batches.', requestId),
      count,
    };
  }
  try {
    advanceExports(state.model);
    const result = HANDLERS[name]({ model: state.model, scope }, body);
    return { status: 200, text: JSON.stringify(result), items: primaryItems(name, result), count };
  } catch (error) {
    if (error instanceof SimApiError)
      return { ...fail(error.status, error.message, requestId, error.details), count };
    return { ...fail(500, 'Unexpected failure on the server side.', requestId), count };
  }
}

/**
 * Serves one `/api/connector/v1/<operation>` request: an injected fault when one is due,
 * else the real answer. Every answer carries `Request-Id`; errors repeat it as `RequestId`.
 */
export async function serveApi(
  state: ApiState,
  name: OperationName,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const requestId = randomUUID();
  const text = await readBody(request);
  if (text === undefined) {
    // A malformed request: the client error (design.md facts: 400), before any fault or budget.
    state.log.push({
      time: new Date(state.model.clock.now()).toISOString(),
      operation: name,
      status: 400,
      items: null,
      count: null,
      fault: null,
      enterpriseId: null,
    });
    sendJson(response, 400, errorBody(SIM_BODY_TOO_LARGE_MESSAGE, requestId), requestId);
    return;
  }
  let fault = state.faults.next();
  // A faulted arrival of an accepted token spends its budget; one over the budget gets the 429
  // the service puts in front of everything else, not the fault.
  const charged =
    fault !== null && CHARGED_FAULTS.has(fault) ? chargeFaulted(state, name, text) : null;
  if (charged && !charged.decision.allowed) fault = null;
  const record = (outcome: Pick<Outcome, 'status' | 'items' | 'count' | 'enterpriseId'>) =>
    state.log.push({
      time: new Date(state.model.clock.now()).toISOString(),
      operation: name,
      status: outcome.status,
      items: outcome.items,
      count: outcome.count,
      fault,
      enterpriseId: outcome.enterpriseId ?? charged?.enterpriseId ?? null,
    });
  if (charged && !charged.decision.allowed) {
    record({ status: 429, items: null, count: null });
    sendJson(response, 429, errorBody('Too many requests.', requestId), requestId, {
      'retry-after': String(charged.decision.retryAfterSeconds),
    });
    return;
  }
  if (fault === 'drop') {
    record({ status: 0, items: null, count: null });
    request.socket.destroy();
    return;
  }
  const canned = fault ? FAULT_ANSWERS[fault] : undefined;
  if (canned) {
    record({ status: canned.status, items: null, count: null });
    sendJson(response, canned.status, errorBody(canned.message, requestId), requestId);
    return;
  }
  if (fault === 'rate-limit') {
    const retryAfter = state.faults.current().retryAfterSeconds;
    record({ status: 429, items: null, count: null });
    const headers: Record<string, string> =
      retryAfter === null ? {} : { 'retry-after': String(retryAfter) };
    sendJson(response, 429, errorBody('Too many requests.', requestId), requestId, headers);
    return;
  }
  const outcome = answer(state, name, text, requestId);
  record(outcome);
  if (fault === 'slow' && !(await delayUnlessClosed(response, state.faults.current().slowMs)))
    return;
  if (fault === 'malformed' && outcome.status === 200) {
    // A body cut in half: the status says success, the JSON cannot be parsed.
    sendJson(
      response,
      200,
      outcome.text.slice(0, Math.max(1, Math.floor(outcome.text.length / 2))),
      requestId,
    );
    return;
  }
  sendJson(response, outcome.status, outcome.text, requestId, outcome.headers);
}

/**
 * Waits `ms` before a slow answer, or less when its connection closes first (the client gave
 * up, or the simulator is stopping and closed it): a pending timer kept the stopped simulator's
 * process alive until the delay was over, up to SIM_MAX_SLOW_MS. True when the answer can still
 * be sent.
 */
async function delayUnlessClosed(response: ServerResponse, ms: number): Promise<boolean> {
  if (response.destroyed) return false;
  const closed = new AbortController();
  const abort = () => closed.abort();
  response.once('close', abort);
  try {
    await delay(ms, undefined, { signal: closed.signal });
    return true;
  } catch {
    return false;
  } finally {
    response.off('close', abort);
  }
}
