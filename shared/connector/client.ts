import { createHash } from 'node:crypto';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { linkedSignal } from '../concurrency.ts';
import { describeThrown, parseOrThrow } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import type { BudgetClaim, BudgetGrant, BudgetView } from './budget/budget-types.ts';
import type { GrantLedger } from './budget/grant-ledger.ts';
import { GRANT_RESTAMPS_MAX } from './budget/late-grant.ts';
import { BUDGET_MARGIN_MS_DEFAULT, sharedBudgetFor } from './budget/shared-budgets.ts';
import type { TokenBudget } from './budget/token-budget.ts';
import { type ConnectorConfig, ConnectorConfigSchema } from './connector-config.ts';
import { CountCeilings } from './count-ceilings.ts';
import { refuseCredentialFields, withoutTokens } from './credential-fields.ts';
import { ConnectorError } from './errors.ts';
import {
  CONNECTOR_DEFAULT_TIMEOUT_MS,
  createUndiciTransport,
  type HttpTransport,
} from './http-transport.ts';
import { parseRequestFor } from './ignored-scope.ts';
import { type ItemScreen, screenBody } from './item-screen.ts';
import {
  isRepeatableOperation,
  OPERATIONS,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  type OperationSpec,
} from './operations.ts';
import { applyPortfolioScope } from './portfolio-scope.ts';
import { CONNECTOR_RATE_WINDOW_MS, CONNECTOR_REQUESTS_PER_WINDOW } from './rate-limit.ts';
import { interpretResponse, type PageReading, type SetAsideRecord } from './response.ts';
import {
  type AttemptHistory,
  DEFAULT_RETRY_LIMITS,
  decideRetry,
  type RetryLimits,
} from './retry-policy.ts';
import { neverReachedServer } from './unsent-request.ts';

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Aborts only the wait for the budget's grant, never a request sent: a bulk caller that gives
   * up its turn when its time is over (a backfill pass between two live polls).
   */
  waitSignal?: AbortSignal;
  /**
   * Epoch ms of the client's clock by which the caller needs the answer (a proxied call, whose
   * own caller stops listening then): each attempt's timeout ends by it, and no attempt starts
   * later than {@link DEADLINE_ATTEMPT_MIN_MS} before it. A failure whose retry would start
   * later is thrown at once (a 429 with its Retry-After); the wait for a grant of the budget
   * ends by that latest start, which sends nothing (a `rate-limit` error without a status) then,
   * not when a slot comes.
   */
  deadline?: number;
  /** Who asks, for the token's budget: live polls go before bulk work (default live). */
  budget?: BudgetClaim;
  /** For a paginated operation: looks at the response's raw items before validation. */
  screen?: ItemScreen;
  /**
   * For a paginated operation: a record that breaks its schema is set aside (left out of the
   * items and told in {@link CallResult.setAside}) instead of failing the call, so one bad record
   * does not stop a stream's window. The rest of the response is held to the contract as
   * always. Default false: a call fails on any record that breaks the contract.
   */
  setAside?: boolean;
  /**
   * With `setAside`, for an unpaginated operation: the response field holding its records (a
   * paginated operation's is its pagination's items key, and this is ignored).
   */
  itemsKey?: string;
}

/** A call's parsed response and the body that finally succeeded (its Count may have shrunk). */
export interface CallResult<N extends OperationName> {
  response: OperationResponse<N>;
  sentBody: Record<string, unknown>;
  /** Items of a paginated response that the call's screen passed over (0 without one). */
  passedOver: number;
  /** Records of a paginated response set aside ({@link CallOptions.setAside}); empty without. */
  setAside: SetAsideRecord[];
  /**
   * Epoch ms (the client's clock) when the attempt that answered was sent: after the waits for
   * the token's budget and for any retry (a 429's Retry-After, a backoff), which it leaves out.
   */
  sentAt: number;
}

/** The least time an attempt is given before a call's {@link CallOptions.deadline}. */
export const DEADLINE_ATTEMPT_MIN_MS = 5_000;

/** Injected collaborators; all optional. */
export interface ConnectorClientDeps {
  clock?: Clock;
  random?: RandomSource;
  transport?: HttpTransport;
  retryLimits?: RetryLimits;
  /** Observes every HTTP attempt (metrics, request counting in benchmarks). */
  onRequest?: (operation: OperationName, status: number | 'network') => void;
  /**
   * Where the token's grants are recorded (the state table, so restarts and concurrent Lambda
   * invocations share one budget); default: this process's memory.
   */
  budgetLedger?: GrantLedger;
  /** Added to the server's 30 s window on our side (default 500 ms; see BudgetLimits.marginMs). */
  budgetMarginMs?: number;
}

/** Low-level access used by the typed API, pagination and the CLI. */
export interface ConnectorCaller {
  /** Validates `body` strictly, adds the envelope and scope, sends it with limits and retries. */
  send<N extends OperationName>(
    name: N,
    body: OperationRequest<N>,
    options?: CallOptions,
  ): Promise<CallResult<N>>;
  call<N extends OperationName>(
    name: N,
    body: OperationRequest<N>,
    options?: CallOptions,
  ): Promise<OperationResponse<N>>;
  /** The token's budget as this process sees it; undefined when limiting is off. */
  budgetView(): BudgetView | undefined;
  /**
   * A fingerprint of what this client authenticates with (endpoint, ClientToken, AccessToken;
   * never the tokens themselves): a stream parked by an authorization error under another
   * fingerprint is polled again. Absent: unknown (a test double).
   */
  readonly credential?: string;
  close(): Promise<void>;
}

/**
 * Creates the Connector API caller for one connection: strict request validation (no request
 * is sent for an invalid body), the envelope from configuration, the budget of its AccessToken
 * (shared by every caller of the token in this process, and through the ledger by every
 * process), and the retry rules of design.md.
 */
export function createConnectorCaller(
  config: ConnectorConfig,
  deps: ConnectorClientDeps = {},
): ConnectorCaller {
  const settings = parseOrThrow(ConnectorConfigSchema, config, 'connector configuration');
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? systemRandom;
  const transport = deps.transport ?? createUndiciTransport();
  const limits = deps.retryLimits ?? DEFAULT_RETRY_LIMITS;
  const timeoutMs = settings.timeoutMs ?? CONNECTOR_DEFAULT_TIMEOUT_MS;
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const rate = settings.rateLimit || undefined;
  const budget: TokenBudget | undefined =
    settings.rateLimit === false
      ? undefined
      : sharedBudgetFor(
          settings.accessToken,
          {
            requests: rate?.requests ?? CONNECTOR_REQUESTS_PER_WINDOW,
            windowMs: rate?.windowMs ?? CONNECTOR_RATE_WINDOW_MS,
            marginMs: deps.budgetMarginMs ?? BUDGET_MARGIN_MS_DEFAULT,
          },
          clock,
          deps.budgetLedger,
        );
  // What this token's requests learnt of the Count answered in time (the timeout error).
  const ceilings = new CountCeilings();
  const connectionTokens = [settings.clientToken, settings.accessToken];
  const envelope = {
    ClientToken: settings.clientToken,
    AccessToken: settings.accessToken,
    Client: settings.client,
  };

  async function attempt(
    spec: OperationSpec,
    name: OperationName,
    body: Record<string, unknown>,
    options: CallOptions,
  ) {
    // Sent after this, it could be applied after its caller stopped listening: it is not sent.
    const latestStart =
      options.deadline === undefined
        ? undefined
        : options.deadline - Math.min(timeoutMs, DEADLINE_ATTEMPT_MIN_MS);
    // The token's pause after a 429, when one is known here: the caller's Retry-After.
    const pausedUntil = () => budget?.view().pausedUntil ?? null;
    const notSent = (pausedPastDeadline = false) => {
      const until = pausedUntil();
      const why = pausedPastDeadline
        ? "the connector paused this token's requests (429 Retry-After) until after the call's deadline"
        : "too little time was left before the call's deadline (waiting for the token's connector budget, or earlier attempts, took it)";
      return new ConnectorError(`${name}: not sent: ${why}; try again later`, {
        category: 'rate-limit',
        operation: name,
        ...(until === null ? {} : { retryAfterMs: until - clock.now() }),
      });
    };
    if (latestStart !== undefined && clock.now() > latestStart) throw notSent();
    // A pause that ends after the latest start gives no slot in time: answered now, not then.
    const paused = latestStart === undefined ? null : pausedUntil();
    if (paused !== null && latestStart !== undefined && paused > latestStart) throw notSent(true);
    let grant: BudgetGrant | undefined;
    if (budget) {
      // Its own signal, or its wait signal, aborts the wait for the budget; so does the latest
      // start of a call with a deadline, which is answered then, not when a slot comes.
      const late = latestStart === undefined ? undefined : new AbortController();
      const endWait = new AbortController();
      if (late && latestStart !== undefined)
        clock.sleep(latestStart - clock.now(), endWait.signal).then(
          () => late.abort(),
          () => undefined,
        );
      // Linked, not AbortSignal.any: `options.signal` lives as long as its poll loop.
      const linked = linkedSignal(options.signal, options.waitSignal, late?.signal);
      try {
        const claim = options.budget ?? { priority: 'live' };
        grant = await budget.acquire(claim, linked.signal);
        // A grant stamped longer ago than its margin allows (a slow ledger answer, a process
        // starved of CPU) would arrive beside later grants that the ledger counted without it:
        // it is moved to now first. A grant sent at once costs nothing more.
        for (let restamps = 0; budget.isLate(grant) && restamps < GRANT_RESTAMPS_MAX; restamps++)
          grant = await budget.restamp(grant, claim, linked.signal);
      } catch (error) {
        if (late?.signal.aborted && !options.signal?.aborted && !options.waitSignal?.aborted)
          throw notSent();
        throw error;
      } finally {
        linked.release();
        endWait.abort();
      }
    }
    const left = options.deadline === undefined ? timeoutMs : options.deadline - clock.now();
    if (left < Math.min(timeoutMs, DEADLINE_ATTEMPT_MIN_MS)) throw notSent();
    let raw: Awaited<ReturnType<HttpTransport['postJson']>>;
    const sentAt = clock.now();
    try {
      raw = await transport.postJson(
        baseUrl + spec.path,
        JSON.stringify({ ...envelope, ...body }),
        {
          timeoutMs: Math.min(timeoutMs, left),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
    } catch (cause) {
      deps.onRequest?.(name, 'network');
      // Refused before it was sent (the connector down, its name not found): the server counted
      // nothing. Any other failure may come after it arrived, and stays counted.
      const unsent = neverReachedServer(cause);
      if (grant && unsent) await budget?.giveBack(grant);
      if (options.signal?.aborted) throw cause;
      // An add is not sent again (decideRetry) unless it was never sent: whoever repeats it
      // must first look for its effect.
      const unknown = isRepeatableOperation(name)
        ? ''
        : unsent
          ? '; it never reached the connector, so it was not applied'
          : '; it may have been applied: check for its records before sending it again';
      throw new ConnectorError(
        `${name}: no answer from the Connector API (${describeThrown(cause)})${unknown}`,
        {
          category: 'network',
          operation: name,
          unsent,
          cause,
        },
      );
    }
    deps.onRequest?.(name, raw.status);
    const itemsKey = spec.pagination?.itemsKey ?? (options.setAside ? options.itemsKey : undefined);
    const screen = options.screen;
    let passedOver = 0;
    let setAside: SetAsideRecord[] = [];
    // The items as the connector sent them, for the place in the page of a record set aside.
    let sentItems: readonly unknown[] = [];
    const prepare =
      itemsKey && (screen || options.setAside)
        ? (body: unknown) => {
            const items = isJsonObject(body) ? body[itemsKey] : undefined;
            sentItems = Array.isArray(items) ? items : [];
            if (!screen) return body;
            const screened = screenBody(body, itemsKey, screen);
            passedOver = screened.passedOver;
            return screened.body;
          }
        : undefined;
    const page: PageReading | undefined =
      itemsKey && options.setAside
        ? {
            itemsKey,
            placeOf: (item, index) => {
              const place = sentItems.indexOf(item);
              return place === -1 ? index : place;
            },
            onSetAside: (records) => {
              setAside = records;
            },
          }
        : undefined;
    // A page whose every item the screen passes over from its text alone is not parsed whole.
    const screenedText =
      raw.status === 200 && itemsKey ? screen?.screenText?.(raw.text, itemsKey) : undefined;
    if (screenedText) passedOver = screenedText.passedOver;
    // An error answer may repeat the request, tokens and all: they are left out of it first.
    const answer = screenedText
      ? { ...raw, text: screenedText.text }
      : raw.status === 200
        ? raw
        : { ...raw, text: withoutTokens(raw.text, connectionTokens) };
    const response = interpretResponse(
      name,
      answer,
      spec.response,
      clock.now(),
      screenedText ? undefined : prepare,
      page,
    );
    return { response, passedOver, setAside, sentAt };
  }

  async function send<N extends OperationName>(
    name: N,
    body: OperationRequest<N>,
    options: CallOptions = {},
  ) {
    const spec: OperationSpec = OPERATIONS[name];
    refuseCredentialFields(body, `${name} request`);
    // Scope first, so a filter the client adds (ChainIds) counts for the "some filter" rules.
    const scoped = isJsonObject(body)
      ? applyPortfolioScope(spec, body, settings.portfolioScope)
      : body;
    // Without a configured scope the AccessToken is an ordinary one (ConnectorConfig), whose
    // ignored fields the service does not count as filters.
    const credential = settings.portfolioScope ? 'portfolio-or-unknown' : 'ordinary';
    let current = withCount(
      parseRequestFor(spec, scoped, credential, `${name} request`),
      (requested) => ceilings.countFor(name, requested),
    );
    const asked = limitationCount(current);
    const history: AttemptHistory = { serverRetries: 0, rateLimitRetries: 0 };
    // An attempt before this one may have reached the server and been applied.
    let earlierMayApply = false;
    for (;;) {
      try {
        const { response, passedOver, setAside, sentAt } = await attempt(
          spec,
          name,
          current,
          options,
        );
        const answered = limitationCount(current);
        if (asked !== undefined && answered !== undefined) ceilings.answered(name, asked, answered);
        return {
          response: response as OperationResponse<N>,
          sentBody: current,
          passedOver,
          setAside,
          sentAt,
        };
      } catch (error) {
        if (!(error instanceof ConnectorError)) throw error;
        const count = limitationCount(current);
        const decision = decideRetry(
          error,
          history,
          count,
          limits,
          random,
          isRepeatableOperation(name),
        );
        const pastDeadline =
          decision.kind === 'wait' &&
          options.deadline !== undefined &&
          clock.now() + decision.delayMs > options.deadline - DEADLINE_ATTEMPT_MIN_MS;
        if (decision.kind === 'fail' || pastDeadline) {
          // This call gives up, but the server's pause holds for every caller of the token:
          // written before the error ends the caller (a Lambda invocation, frozen after it).
          if (error.category === 'rate-limit' && error.retryAfterMs !== undefined)
            await budget?.throttled(clock.now() + error.retryAfterMs);
          throw earlierMayApply && error.unsent ? mayHaveApplied(error) : error;
        }
        if (error.category !== 'rate-limit' && !error.unsent) earlierMayApply = true;
        if (decision.kind === 'shrink') {
          current = withCount(current, () => decision.count);
          continue;
        }
        if (error.category === 'rate-limit') {
          history.rateLimitRetries++;
          void budget?.throttled(clock.now() + decision.delayMs);
        } else history.serverRetries++;
        await clock.sleep(decision.delayMs, options.signal);
      }
    }
  }

  return {
    send,
    call: async (name, body, options) => (await send(name, body, options)).response,
    budgetView: () => budget?.view(),
    credential: credentialFingerprint(baseUrl, settings.clientToken, settings.accessToken),
    close: () => transport.close(),
  };
}

/**
 * A short one-way fingerprint of a connector endpoint and its tokens, kept with a parked stream
 * to tell whether the credentials changed since they were refused. Pure.
 * @example credentialFingerprint('https://api.example.com', 'client', 'access').length === 16
 */
export function credentialFingerprint(
  baseUrl: string,
  clientToken: string,
  accessToken: string,
): string {
  return createHash('sha256')
    .update(`${baseUrl}\n${clientToken}\n${accessToken}`)
    .digest('hex')
    .slice(0, 16);
}

/** `body` with its `Limitation.Count` replaced by `count` of it (the body itself when it has none or keeps it). */
function withCount(
  body: Record<string, unknown>,
  count: (current: number) => number,
): Record<string, unknown> {
  const current = limitationCount(body);
  if (current === undefined) return body;
  const next = count(current);
  if (next === current) return body;
  return { ...body, Limitation: { ...(body.Limitation as object), Count: next } };
}

/** Reads `Limitation.Count` from a request body, if it has one. */
export function limitationCount(body: Record<string, unknown>): number | undefined {
  const limitation = body.Limitation;
  if (typeof limitation !== 'object' || limitation === null) return undefined;
  const count = (limitation as { Count?: unknown }).Count;
  return typeof count === 'number' ? count : undefined;
}

/**
 * `error` of a last attempt that never reached the server, after an earlier one that may have
 * been applied (a repeatable operation sent again): the call as a whole is not `unsent`.
 */
function mayHaveApplied(error: ConnectorError): ConnectorError {
  return new ConnectorError(error.message, {
    category: error.category,
    operation: error.operation,
    status: error.status,
    requestId: error.requestId,
    details: error.details,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
  });
}
