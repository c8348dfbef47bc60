import type { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import type { ConnectorConfig } from '../../shared/connector/connector-config.ts';
import {
  createUndiciTransport,
  type HttpTransport,
} from '../../shared/connector/http-transport.ts';
import type { RunningSimulator } from '../../shared/simulator/simulator.ts';

/** One request the connector received: its operation and body (tokens included: tests only). */
export interface AskedRequest {
  operation: string;
  body: Record<string, unknown>;
}

/** A connector client whose answers take their time on a manual clock, from {@link slowConnector}. */
export interface SlowConnector {
  client: ConnectorClient;
  /** The requests the connector answered (a 429 included), in order. */
  asked: AskedRequest[];
  /** Requests whose answer was on its way back when the caller aborted it: spent for nothing. */
  aborted(): number;
  /** Whether an answer is on its way back, or the client is waiting out a Retry-After. */
  busy(): boolean;
  /** Answers the next request at once with a 429 whose Retry-After is `seconds`. */
  throttleNext(seconds: number): void;
}

/**
 * A client of `config` whose every answer travels `pageMs` back on `clock` (the connector
 * received and answered it already: aborted then, it was spent). With {@link SlowConnector.throttleNext}
 * the next request is answered 429 with a Retry-After instead, and not handed to the connector.
 */
export function slowConnector(
  config: ConnectorConfig,
  clock: ManualClock,
  pageMs: number,
): SlowConnector {
  const http = createUndiciTransport();
  const asked: AskedRequest[] = [];
  let inFlight = 0;
  let aborted = 0;
  let throttle: number | undefined;
  let throttledUntil = Number.NEGATIVE_INFINITY;
  const transport: HttpTransport = {
    async postJson(url, body, options) {
      const operation = url.replace(/^.*\/api\/connector\/v1\//, '');
      asked.push({ operation, body: JSON.parse(body) as Record<string, unknown> });
      if (throttle !== undefined) {
        const seconds = throttle;
        throttle = undefined;
        throttledUntil = clock.now() + seconds * 1000;
        return {
          status: 429,
          headers: { 'retry-after': String(seconds), 'content-type': 'application/json' },
          text: JSON.stringify({ Message: 'Too many requests.' }),
        };
      }
      const answer = await http.postJson(url, body, options);
      inFlight++;
      try {
        await clock.sleep(pageMs, options.signal);
      } catch (error) {
        aborted++;
        throw error;
      } finally {
        inFlight--;
      }
      return answer;
    },
    close: () => http.close(),
  };
  return {
    client: createConnectorClient(config, { clock, transport }),
    asked,
    aborted: () => aborted,
    busy: () => inFlight > 0 || clock.now() < throttledUntil,
    throttleNext(seconds) {
      throttle = seconds;
    },
  };
}

/**
 * Runs `job` to its end, moving `clock` only while an answer of `connector` is on its way or
 * the client waits out a Retry-After (so the work between answers takes no time on it).
 */
export async function runOnClock<T>(
  clock: ManualClock,
  connector: SlowConnector,
  job: () => Promise<T>,
): Promise<T> {
  let settled = false;
  const running = job().finally(() => {
    settled = true;
  });
  running.catch(() => undefined);
  while (!settled) {
    if (connector.busy()) await clock.advance(10);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return running;
}

/**
 * {@link slowConnector} of the simulator `sim` with its access token, unthrottled by the client
 * (the tests count every request); `config` changes or adds fields (another token, a portfolio
 * scope).
 * @example const slow = slowSimulatorConnector(h.sim, h.clock, 1_000);
 */
export function slowSimulatorConnector(
  sim: Pick<RunningSimulator, 'url' | 'tokens'>,
  clock: ManualClock,
  pageMs: number,
  config: Partial<ConnectorConfig> = {},
): SlowConnector {
  return slowConnector(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'tests',
      rateLimit: false,
      ...config,
    },
    clock,
    pageMs,
  );
}
