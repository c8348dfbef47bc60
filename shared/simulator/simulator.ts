import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { allowedHostsFor, isLoopbackHost, webPageRefusal } from '../admin/request-guard.ts';
import { ManualClock, seededRandom, systemClock } from '../clock.ts';
import { ValidationError } from '../errors.ts';
import { ActivityGenerator } from './activity.ts';
import { activityRunSchema } from './activity-run-schema.ts';
import type { ApiState, SimTokens } from './api.ts';
import { BoundedLog } from './bounded-log.ts';
import { enterpriseByToken, enterpriseTokens } from './enterprise-tokens.ts';
import { FaultInjector } from './faults.ts';
import { generateDataset } from './generate.ts';
import { errorBody, sendJson } from './http-util.ts';
import { SIM_JOURNAL_MAX_ENTRIES } from './journal.ts';
import { SIM_DEFAULT_RATE_LIMIT, SimRateLimiter } from './rate-limit.ts';
import { SIM_REQUEST_LOG_MAX_ENTRIES } from './request-log.ts';
import type { ServedState } from './simulator-control-routes.ts';
import type { RunningSimulator, SimulatorControls, SimulatorOptions } from './simulator-options.ts';
import { route } from './simulator-routes.ts';

export type {
  ActivityRun,
  RunningSimulator,
  SimulatorControls,
  SimulatorOptions,
} from './simulator-options.ts';
export { SIM_API_PREFIX } from './simulator-routes.ts';

/** The tokens used when none are given (design.md, CLI `simulator`). */
export const SIM_DEFAULT_TOKENS: SimTokens = {
  clientToken: 'sim-client-token',
  accessToken: 'sim-access-token',
  portfolioToken: 'sim-portfolio-token',
};

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
