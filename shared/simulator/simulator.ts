import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { allowedHostsFor, isLoopbackHost, webPageRefusal } from '../admin/request-guard.ts';
import { type Clock, ManualClock, type RandomSource, seededRandom, systemClock } from '../clock.ts';
import { isOperationName } from '../connector/operations.ts';
import { ValidationError } from '../errors.ts';
import {
  ActivityGenerator,
  SIM_MAX_ACTIVITY_PER_SECOND,
  SIM_MAX_ACTIVITY_RUN_MS,
  SIM_MAX_ACTIVITY_RUN_STEPS,
} from './activity.ts';
import { type ApiState, type SimTokens, serveApi } from './api.ts';
import { BoundedLog } from './bounded-log.ts';
import { type EnterpriseToken, enterpriseByToken, enterpriseTokens } from './enterprise-tokens.ts';
import {
  type FaultConfig,
  type FaultConfigInput,
  FaultConfigSchema,
  FaultInjector,
} from './faults.ts';
import { type DatasetSize, generateDataset } from './generate.ts';
import { errorBody, readBody, SIM_BODY_TOO_LARGE_MESSAGE, sendJson } from './http-util.ts';
import { type JournalEntry, JournalGapError, SIM_JOURNAL_MAX_ENTRIES } from './journal.ts';
import type { SimModel } from './model.ts';
import { SIM_DEFAULT_RATE_LIMIT, type SimRateLimit, SimRateLimiter } from './rate-limit.ts';
import { type RequestLogEntry, SIM_REQUEST_LOG_MAX_ENTRIES } from './request-log.ts';

/** Where the operations live (connector-api.md: the version is in the path). */
export const SIM_API_PREFIX = '/api/connector/v1/';

/** The tokens used when none are given (design.md, CLI `simulator`). */
export const SIM_DEFAULT_TOKENS: SimTokens = {
  clientToken: 'sim-client-token',
  accessToken: 'sim-access-token',
  portfolioToken: 'sim-portfolio-token',
};

/** Options of {@link startSimulator}; every field has a default. */
export interface SimulatorOptions {
  /** Dataset and activity seed (default 1). */
  seed?: number;
  /** Dataset size (default small). */
  size?: DatasetSize;
  /** Enterprises (properties) in the chain, each with its own AccessToken (default 3). */
  enterprises?: number;
  /** Customers instead of the size's number. */
  customers?: number;
  /** Every enterprise a chain of its own (independent hotels: each its own customers, notes and loyalty programs). */
  chainPerEnterprise?: boolean;
  /** Time of the model, the rate limiter and the activity (default the system clock). */
  clock?: Clock;
  /**
   * The dataset's "now" (epoch ms; default `clock.now()`): the same seed, size and
   * `seededAtMs` seed the same records at any real time (`start` keeps it in its data dir).
   */
  seededAtMs?: number;
  /** Seed of the activity's and API writes' random stream (default: the dataset's stream goes on). */
  activitySeed?: number;
  /** Source for fault draws (default derived from the seed). */
  random?: RandomSource;
  /** Background activity at `perSecond` mutations per clock second; false (default) for none. */
  activity?: { perSecond: number } | false;
  faults?: FaultConfigInput;
  /** Server-side budget per AccessToken (default 200 per 30 s); false turns it off. */
  rateLimit?: SimRateLimit | false;
  /** TCP port (default 0: any free port). */
  port?: number;
  /**
   * Interface to listen on (default 127.0.0.1). On loopback, requests under another `Host`
   * than its address (or `localhost`) are refused (403), as are requests with an `Origin`
   * wherever it listens.
   */
  host?: string;
  tokens?: Partial<SimTokens>;
  /**
   * Whether a soft delete or a restore moves the record's `UpdatedUtc` (default true; the
   * contract leaves it open, see SimModel.deletesMoveUpdatedUtc).
   */
  deletesMoveUpdatedUtc?: boolean;
  /**
   * Commit lag in ms (default 0): every mutation is stamped this long before it shows (see
   * SimModel.commitLagMs).
   */
  commitLagMs?: number;
  /** Journal entries kept, the newest (default {@link SIM_JOURNAL_MAX_ENTRIES}). */
  journalMaxEntries?: number;
  /** Request-log entries kept, the newest (default {@link SIM_REQUEST_LOG_MAX_ENTRIES}). */
  requestLogMaxEntries?: number;
}

/** How much simulated activity {@link SimulatorControls.runActivity} performs. */
export type ActivityRun = { steps: number } | { durationMs: number; perSecond?: number };

/** Direct access for tests; the same controls are served under `/_sim/`. */
export interface SimulatorControls {
  /** The in-memory model, for assertions. */
  readonly model: SimModel;
  /**
   * Journal entries with seq greater than `sinceSeq`; without it, every entry kept (the newest
   * `journalMaxEntries`).
   * @throws JournalGapError when an entry after `sinceSeq` is no longer kept.
   */
  journal(sinceSeq?: number): JournalEntry[];
  /** Answered `/api/` requests, oldest first: the newest `requestLogMaxEntries` of them. */
  requestLog(): RequestLogEntry[];
  /** Requests answered since the start or the last clear that the request log no longer holds. */
  requestLogDropped(): number;
  clearRequestLog(): void;
  /** Merges fault settings; returns the settings now in force. */
  setFaults(input: FaultConfigInput): FaultConfig;
  /**
   * Runs activity now: `steps` mutations at the current time, or the mutations of
   * `durationMs` at `perSecond` (default the configured rate, else 5). With a ManualClock the
   * clock is advanced through the duration in 100 ms ticks so mutations carry their times.
   * @throws ZodError (a 400 at `POST /_sim/activity`) naming `steps`, `durationMs` or
   * `perSecond` beyond its bound: at most SIM_MAX_ACTIVITY_RUN_STEPS mutations, an hour, and
   * the `--activity` cap of 1000 a second.
   */
  runActivity(run: ActivityRun): Promise<void>;
  startActivity(perSecond: number): void;
  stopActivity(): void;
  /** Forgets counted requests of every token. */
  resetRateLimits(): void;
  setRateLimit(limit: SimRateLimit | false): void;
}

/** A running simulator. */
export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:4010` (operations live under `/api/connector/v1/`). */
  url: string;
  tokens: SimTokens;
  /** Every enterprise's own AccessToken; the first is `tokens.accessToken`. */
  enterpriseTokens: EnterpriseToken[];
  controls: SimulatorControls;
  /** Stops activity and the server; resolves when every connection is closed. */
  close(): Promise<void>;
}

/**
 * A run of activity within its bounds, the rate of a timed run defaulting to `defaultPerSecond`:
 * each run is made at once on the simulator's one thread, so one request cannot keep it busy
 * for long (or grow its journal without end).
 */
function activityRunSchema(defaultPerSecond: number) {
  const MAX_STEPS = SIM_MAX_ACTIVITY_RUN_STEPS;
  return z.union([
    z.strictObject({ steps: z.number().int().min(0).max(MAX_STEPS) }),
    z
      .strictObject({
        durationMs: z.number().int().min(0).max(SIM_MAX_ACTIVITY_RUN_MS),
        perSecond: z.number().positive().max(SIM_MAX_ACTIVITY_PER_SECOND).optional(),
      })
      .refine((run) => ((run.perSecond ?? defaultPerSecond) * run.durationMs) / 1000 <= MAX_STEPS, {
        path: ['durationMs'],
        error: `makes more than ${MAX_STEPS} mutations at its perSecond; run it in parts`,
      }),
  ]);
}

/**
 * Starts the Connector API simulator: generates the dataset, serves the 20 operations at
 * `/api/connector/v1/` and the controls at `/_sim/`, and runs background activity if asked.
 * @example const sim = await startSimulator({ seed: 7, clock: new ManualClock() });
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? systemClock;
  const model = generateDataset({
    seed,
    size: options.size ?? 'small',
    clock,
    ...(options.seededAtMs === undefined ? {} : { seededAtMs: options.seededAtMs }),
    ...(options.activitySeed === undefined ? {} : { activitySeed: options.activitySeed }),
    ...(options.enterprises === undefined ? {} : { enterprises: options.enterprises }),
    ...(options.customers === undefined ? {} : { customers: options.customers }),
    chainPerEnterprise: options.chainPerEnterprise ?? false,
  });
  model.deletesMoveUpdatedUtc = options.deletesMoveUpdatedUtc ?? true;
  model.commitLagMs = options.commitLagMs ?? 0;
  model.journal.setMaxEntries(options.journalMaxEntries ?? SIM_JOURNAL_MAX_ENTRIES);
  const tokens: SimTokens = { ...SIM_DEFAULT_TOKENS, ...options.tokens };
  const perEnterprise = enterpriseTokens(model.world, tokens.accessToken);
  const clash = perEnterprise.findIndex((token) => token.accessToken === tokens.portfolioToken);
  if (clash >= 0)
    throw new ValidationError('simulator options', [
      {
        path: 'tokens.portfolioToken',
        message: `must differ from every enterprise AccessToken; it is enterprise ${clash + 1}'s`,
      },
    ]);
  const state: ApiState = {
    model,
    tokens,
    enterpriseOfToken: enterpriseByToken(perEnterprise),
    limiter: new SimRateLimiter(options.rateLimit ?? SIM_DEFAULT_RATE_LIMIT, clock),
    faults: new FaultInjector(options.faults ?? {}, options.random ?? seededRandom(seed ^ 0x5eed)),
    log: new BoundedLog(options.requestLogMaxEntries ?? SIM_REQUEST_LOG_MAX_ENTRIES),
  };
  const activity = new ActivityGenerator(model, clock);
  const configuredRate = options.activity ? options.activity.perSecond : 0;
  /** The rate of a timed run that names none. */
  const defaultRunRate = configuredRate || 5;
  const activityRun = activityRunSchema(defaultRunRate);

  const controls: SimulatorControls = {
    model,
    journal: (sinceSeq) => model.journal.since(sinceSeq),
    requestLog: () => state.log.from(),
    requestLogDropped: () => state.log.dropped,
    clearRequestLog: () => {
      state.log.clear();
    },
    setFaults: (input) => state.faults.set(input),
    runActivity: async (run) => {
      const parsed = activityRun.parse(run);
      if ('steps' in parsed) return activity.step(parsed.steps);
      const perSecond = parsed.perSecond ?? defaultRunRate;
      const tickMs = 100;
      let due = 0;
      for (let elapsed = 0; elapsed < parsed.durationMs; elapsed += tickMs) {
        if (clock instanceof ManualClock)
          await clock.advance(Math.min(tickMs, parsed.durationMs - elapsed));
        due += (perSecond * Math.min(tickMs, parsed.durationMs - elapsed)) / 1000;
        const steps = Math.floor(due);
        due -= steps;
        activity.step(steps);
      }
    },
    startActivity: (perSecond) => activity.start(perSecond),
    stopActivity: () => activity.stop(),
    resetRateLimits: () => state.limiter.reset(),
    setRateLimit: (limit) => state.limiter.configure(limit),
  };

  const served: ServedState = Object.assign(state, {
    enterpriseTokens: perEnterprise,
    activityRun,
  });
  /** The Host values it answers to once listening (on loopback only; see webPageRefusal). */
  let ownHosts: readonly string[] | undefined;
  const server = createServer((request, response) => {
    const refusal = webPageRefusal(request.headers, ownHosts, 'simulator');
    if (refusal !== undefined) {
      const requestId = randomUUID();
      request.resume();
      sendJson(response, 403, errorBody(refusal, requestId), requestId);
      return;
    }
    route(served, controls, request, response).catch(() => {
      // Every answer carries a Request-Id of its own, this one too (design.md facts).
      const requestId = randomUUID();
      if (!response.headersSent)
        sendJson(
          response,
          500,
          errorBody('Unexpected failure on the server side.', requestId),
          requestId,
        );
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('simulator is not listening on TCP');
  const boundTo = options.host ?? '127.0.0.1';
  if (isLoopbackHost(boundTo)) ownHosts = allowedHostsFor(boundTo, address.port);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (configuredRate > 0) activity.start(configuredRate);
  return {
    url: `http://${host}:${address.port}`,
    tokens,
    enterpriseTokens: perEnterprise,
    controls,
    close: async () => {
      activity.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** What the server's routes read besides the API's state. */
type ServedState = ApiState & {
  enterpriseTokens: EnterpriseToken[];
  /** The bounds of a run of `POST /_sim/activity` (see {@link activityRunSchema}). */
  activityRun: ReturnType<typeof activityRunSchema>;
};

async function route(
  state: ServedState,
  controls: SimulatorControls,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://simulator');
  // Every answer carries a Request-Id (design.md), those that reach no operation too.
  const requestId = randomUUID();
  if (url.pathname.startsWith(SIM_API_PREFIX)) {
    const name = url.pathname.slice(SIM_API_PREFIX.length);
    if (!isOperationName(name)) {
      sendJson(response, 404, errorBody(`Unknown operation ${name}.`, requestId), requestId);
      return;
    }
    if (request.method !== 'POST') {
      sendJson(response, 405, errorBody('Operations are called with POST.', requestId), requestId, {
        allow: 'POST',
      });
      return;
    }
    await serveApi(state, name, request, response);
    return;
  }
  if (url.pathname.startsWith('/_sim/')) {
    await serveControl(state, controls, url, request, response);
    return;
  }
  sendJson(response, 404, errorBody('Not found.', requestId), requestId);
}

async function serveControl(
  state: ServedState,
  controls: SimulatorControls,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const reply = (status: number, body: unknown) =>
    sendJson(response, status, JSON.stringify(body), 'control');
  const input = async (): Promise<unknown> => {
    const text = await readBody(request);
    if (text === undefined) throw new SyntaxError(SIM_BODY_TOO_LARGE_MESSAGE);
    return text.trim() === '' ? {} : JSON.parse(text);
  };
  const path = url.pathname.slice('/_sim/'.length);
  try {
    if (path === 'journal' && request.method === 'GET') {
      const journal = state.model.journal;
      const since = url.searchParams.get('since');
      if (since !== null && !/^\d+$/.test(since))
        return reply(400, {
          Message: `since: must be a whole number of 0 or more (the seq of the last entry read), not ${JSON.stringify(since)}`,
        });
      try {
        const entries = controls.journal(since === null ? undefined : Number(since));
        return reply(200, { entries, lastSeq: journal.lastSeq, dropped: journal.dropped });
      } catch (error) {
        if (!(error instanceof JournalGapError)) throw error;
        return reply(410, {
          Message: error.message,
          lastSeq: journal.lastSeq,
          dropped: journal.dropped,
        });
      }
    }
    if (path === 'requests' && request.method === 'GET')
      return reply(200, { requests: controls.requestLog(), dropped: controls.requestLogDropped() });
    if (path === 'requests' && request.method === 'DELETE') {
      controls.clearRequestLog();
      return reply(200, {});
    }
    if (path === 'faults' && request.method === 'GET') return reply(200, state.faults.current());
    if (path === 'faults' && request.method === 'POST') {
      return reply(200, controls.setFaults(FaultConfigSchema.partial().parse(await input())));
    }
    if (path === 'activity' && request.method === 'POST') {
      await controls.runActivity(state.activityRun.parse(await input()));
      return reply(200, { lastSeq: state.model.journal.lastSeq });
    }
    if (path === 'rate-limits/reset' && request.method === 'POST') {
      controls.resetRateLimits();
      return reply(200, {});
    }
    if (path === 'tokens' && request.method === 'GET') {
      return reply(200, {
        clientToken: state.tokens.clientToken,
        portfolioToken: state.tokens.portfolioToken,
        enterprises: state.enterpriseTokens,
      });
    }
    if (path === 'world' && request.method === 'GET') {
      const world = state.model.world;
      return reply(200, {
        chainId: world.chainId,
        chainIds: world.chainIds,
        enterprises: world.enterprises.map((e) => ({
          id: e.Id,
          chainId: e.ChainId,
          name: e.Name,
          timeZone: e.timeZone,
          currency: e.currency,
        })),
        products: world.products.map((p) => ({
          id: p.Id,
          enterpriseId: p.EnterpriseId,
          name: p.Name,
        })),
      });
    }
    return reply(404, { Message: `Unknown control ${request.method} /_sim/${path}` });
  } catch (error) {
    if (error instanceof z.ZodError || error instanceof SyntaxError)
      return reply(400, { Message: error.message });
    throw error;
  }
}
