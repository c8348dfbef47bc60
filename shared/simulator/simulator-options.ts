import type { Clock, RandomSource } from '../clock.ts';
import type { SimTokens } from './api.ts';
import type { EnterpriseToken } from './enterprise-tokens.ts';
import type { FaultConfig, FaultConfigInput } from './faults.ts';
import type { DatasetSize } from './generate.ts';
import { type JournalEntry, SIM_JOURNAL_MAX_ENTRIES } from './journal.ts';
import type { SimModel } from './model.ts';
import type { SimRateLimit } from './rate-limit.ts';
import { type RequestLogEntry, SIM_REQUEST_LOG_MAX_ENTRIES } from './request-log.ts';

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
