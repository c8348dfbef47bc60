import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { KeyedSerial } from '../concurrency.ts';
import type { DeliveryCounter } from './delivery-counter.ts';
import { EndpointScheduler } from './endpoint-scheduler.ts';
import type { WebhookSender } from './http-sender.ts';
import { CountingMetrics, type DispatchMetrics } from './metrics.ts';
import type { OperationalEventSink } from './operational-events.ts';
import type { DeliveryQueue } from './queue.ts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  DISABLE_AFTER_FAILING_MS,
  ENDPOINT_PAUSE_MAX_MS,
  FAILING_AFTER_FAILURES,
} from './retry-policy.ts';
import type { WebhookStore } from './store.ts';
import { SubjectTurns } from './subject-turns.ts';
import type { WaitingLedger } from './waiting-ledger.ts';

/** Tunables of the dispatcher; every one has a default. */
export interface DispatcherConfig {
  /** Retry schedule of subscriptions that set none. */
  defaultRetrySchedule: readonly number[];
  /** Clamp of a `Retry-After` pause. */
  maxPauseMs: number;
  /** Consecutive failures before `delivery.failing`. */
  failingAfterFailures: number;
  /** Failing without success this long disables a subscription. */
  disableAfterMs: number;
}

/** The defaults of {@link DispatcherConfig}. */
export const DEFAULT_DISPATCHER_CONFIG: DispatcherConfig = {
  defaultRetrySchedule: DEFAULT_RETRY_SCHEDULE_MS,
  maxPauseMs: ENDPOINT_PAUSE_MAX_MS,
  failingAfterFailures: FAILING_AFTER_FAILURES,
  disableAfterMs: DISABLE_AFTER_FAILING_MS,
};

/** Structured logging port; never given secrets. */
export interface DispatchLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Logs JSON lines to stderr. */
export const consoleDispatchLogger: DispatchLogger = {
  warn: (message, fields) => console.warn(JSON.stringify({ level: 'WARN', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'ERROR', message, ...fields })),
};

/** Everything the dispatcher runs on; built once per cold start (or per `npm start`). */
export interface DispatcherDeps {
  store: WebhookStore;
  queue: DeliveryQueue;
  sender: WebhookSender;
  sink: OperationalEventSink;
  clock: Clock;
  random: RandomSource;
  metrics: DispatchMetrics;
  logger: DispatchLogger;
  config: DispatcherConfig;
  /** Concurrency, order and pauses per endpoint, shared by every batch of this process. */
  scheduler: EndpointScheduler;
  /** A subject's events on their way to the scheduler, in the order the queue handed them over. */
  turns: SubjectTurns;
  /**
   * Ids of the events a batch of this process is fanning out and delivering now: another copy
   * of one (a republished event, same id) is left to that batch (see processDispatchBatch).
   */
  eventsInFlight: Set<string>;
  /** Writes of an endpoint's state, one at a time per endpoint in this process. */
  endpointWrites: KeyedSerial;
  /** Succeeded deliveries per stream, added once per batch (backfill progress); absent: not counted. */
  deliveryCounter?: DeliveryCounter;
  /**
   * Which deliveries wait for a later attempt, shared by every process that delivers (in AWS,
   * the dispatcher's containers); absent: the scheduler's memory of this process alone.
   */
  waitingLedger?: WaitingLedger;
}

/** What {@link createDispatcherDeps} needs; the rest has defaults. */
export type DispatcherDepsInput = Pick<DispatcherDeps, 'store' | 'queue' | 'sender' | 'sink'> &
  Partial<Omit<DispatcherDeps, 'config'>> & { config?: Partial<DispatcherConfig> };

/**
 * Fills in the defaults: system clock and random source, counting metrics, JSON console
 * logger, {@link DEFAULT_DISPATCHER_CONFIG}.
 * @example createDispatcherDeps({ store, queue, sender, sink, config: { maxPauseMs: 600_000 } })
 */
export function createDispatcherDeps(input: DispatcherDepsInput): DispatcherDeps {
  const clock = input.clock ?? systemClock;
  return {
    clock,
    random: systemRandom,
    metrics: new CountingMetrics(),
    logger: consoleDispatchLogger,
    scheduler: new EndpointScheduler(clock),
    turns: new SubjectTurns(),
    eventsInFlight: new Set(),
    endpointWrites: new KeyedSerial(),
    ...input,
    config: { ...DEFAULT_DISPATCHER_CONFIG, ...input.config },
  };
}
