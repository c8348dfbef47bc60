import { z } from 'zod';
import { ENTITY_TYPES, type EntityType, EntityTypeListSchema } from '../changes/entity-types.ts';
import { commaItems } from '../comma-list.ts';
import { CONFIGURATION } from '../configuration-error.ts';
import { DurationSchema, parseDuration } from '../duration.ts';
import { parseEnvironment } from '../env-issues.ts';
import { ValidationError } from '../errors.ts';
import { wholeNumberVariable } from '../optional-variable.ts';
import type { ProductTarget, StreamDefinition } from './poll-context.ts';
import { PAGE_COUNT_MAX } from './poll-spec.ts';
import { POLL_SPECS } from './specs/index.ts';
import { PRICE_HORIZON_MAX_DAYS } from './strategies/product-prices.ts';
import { pollSlotsOf, streamPhasesMs } from './stream-phase.ts';
import { sweepIntervalOf, sweepSlotsOf } from './sweep-slots.ts';
import type { WindowSettings } from './windows.ts';

/** Entity types polled when POLL_ENTITIES is not set: everything that needs no extra configuration. */
export const DEFAULT_POLL_ENTITIES: readonly EntityType[] = ENTITY_TYPES.filter(
  (t) => t !== 'export' && t !== 'productPrice',
);

const EntityListSchema = z.string().transform(commaItems).pipe(EntityTypeListSchema);

/** The longest overlap or settle lag: a day (a window spans up to three months). */
export const WINDOW_MARGIN_MAX_MS = 24 * 60 * 60 * 1000;

/**
 * POLL_OVERLAP or POLL_SETTLE_LAG: a duration of at most a day. An overlap as long as the
 * three-month window would start every window before the last one's start, and the
 * watermark would move back for ever.
 */
export const WindowMarginSchema = DurationSchema.pipe(
  z.number().max(WINDOW_MARGIN_MAX_MS, { error: 'must be at most 1d' }),
);

/**
 * Most CONNECTOR_BUDGET_MARGIN may add to the server's 30 s window: transit and clock skew are
 * far below it, and a margin of a day would space the token's 200 requests over a day, with
 * no word said.
 */
export const BUDGET_MARGIN_MAX_MS = 30_000;

/**
 * The longest poll interval, a connection's as the deployment's: a day. Unbounded, a stream's
 * next due time could pass the last instant a Date holds, and every listing of the streams
 * failed on it.
 */
export const POLL_INTERVAL_MAX_MS = 86_400_000;

/** The POLL_* and INITIAL_SYNC variables (design.md, Configuration). */
export const PollEnvSchema = z.object({
  POLL_INTERVAL: DurationSchema.pipe(
    z.number().max(POLL_INTERVAL_MAX_MS, { error: 'must be at most 1d' }),
  ).optional(),
  // The settle lag keeps the last instants (still being written) out of a window; the overlap
  // re-reads a little before the watermark, so a record committed up to overlap + lag late is
  // still seen (by the next window, an interval later). Kept short: a webhook follows a mutation
  // within about lag + interval. 100 ms, not 500: at 1 s polling p99 fell ~0.4 s in every
  // latency scenario, which 500 had missed twice in one hour (docs/benchmarks.md).
  POLL_OVERLAP: WindowMarginSchema.default(5_000),
  POLL_SETTLE_LAG: WindowMarginSchema.default(100),
  POLL_ENTITIES: EntityListSchema.optional(),
  INITIAL_SYNC: z.enum(['baseline', 'emit']).default('baseline'),
  /** Where a first sync starts: an ISO date-time, or a duration back from now (`400d`). */
  POLL_HISTORY_START: z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)) || parseDuration(text) !== undefined, {
      message: 'must be an ISO date-time or a duration such as 400d',
    })
    .optional(),
  /**
   * Added to the Connector API's 30 s window when the token's budget spaces its requests, so
   * that transit and clock skew never let the server count more than 200 in its own window.
   */
  CONNECTOR_BUDGET_MARGIN: DurationSchema.pipe(
    z.number().max(BUDGET_MARGIN_MAX_MS, { error: 'must be at most 30s' }),
  ).default(500),
  /** Days ahead, today included, that productPrice streams price each product over. */
  POLL_PRICE_HORIZON_DAYS: wholeNumberVariable(
    z
      .number()
      .min(1, { error: 'must be at least 1' })
      .max(PRICE_HORIZON_MAX_DAYS, { error: `must be at most ${PRICE_HORIZON_MAX_DAYS}` }),
  ).optional(),
});

/** Parsed poll settings. */
export interface PollSettings {
  /** One interval for every stream, or undefined for each spec's default. */
  intervalMs: number | undefined;
  entities: readonly EntityType[];
  initialSync: 'baseline' | 'emit';
  windows: WindowSettings;
  pageCount: number;
  /** See CONNECTOR_BUDGET_MARGIN. */
  budgetMarginMs: number;
  /** POLL_PRICE_HORIZON_DAYS: the productPrice streams' horizon; undefined for the default (30). */
  priceHorizonDays?: number;
}

/** Where a first sync starts by default: records older than this are read on the first run. */
export const DEFAULT_HISTORY_YEARS = 5;

/**
 * Reads poll settings from environment-like input.
 * @throws ValidationError naming the variable, not showing its value (e.g. `POLL_INTERVAL: is
 * not a duration …`), or `POLL_HISTORY_START` when it is in the future.
 */
export function pollSettingsFromEnv(
  env: Record<string, string | undefined>,
  nowMs: number,
): PollSettings {
  const parsed = parseEnvironment(PollEnvSchema, env);
  const history = new Date(nowMs);
  history.setUTCFullYear(history.getUTCFullYear() - DEFAULT_HISTORY_YEARS);
  const historyStartMs = parsed.POLL_HISTORY_START
    ? historyStartOf(parsed.POLL_HISTORY_START, nowMs)
    : Date.UTC(history.getUTCFullYear(), 0, 1);
  // A first sync's window would start after its end: it would read nothing, with no error,
  // until that time came.
  if (historyStartMs > nowMs)
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'POLL_HISTORY_START',
        message: `must not be in the future (it is now ${new Date(nowMs).toISOString()})`,
      },
    ]);
  return {
    intervalMs: parsed.POLL_INTERVAL,
    entities: parsed.POLL_ENTITIES ?? DEFAULT_POLL_ENTITIES,
    initialSync: parsed.INITIAL_SYNC,
    windows: {
      overlapMs: parsed.POLL_OVERLAP,
      settleLagMs: parsed.POLL_SETTLE_LAG,
      historyStartMs,
      minWindowMs: 0,
    },
    pageCount: PAGE_COUNT_MAX,
    budgetMarginMs: parsed.CONNECTOR_BUDGET_MARGIN,
    ...(parsed.POLL_PRICE_HORIZON_DAYS === undefined
      ? {}
      : { priceHorizonDays: parsed.POLL_PRICE_HORIZON_DAYS }),
  };
}

/** Extra inputs for strategies that need them. */
export interface StreamExtras {
  scope?: StreamDefinition['scope'];
  exportIds?: readonly string[];
  products?: readonly ProductTarget[];
  priceHorizonDays?: number;
}

/** The streams of one connection: one per polled entity type, id `<connectionId>:<entityType>`. */
export function streamDefinitions(
  connectionId: string,
  settings: PollSettings,
  extras: StreamExtras = {},
): StreamDefinition[] {
  const priceHorizonDays = extras.priceHorizonDays ?? settings.priceHorizonDays;
  const unphased = settings.entities.map((entityType): StreamDefinition => {
    const spec = POLL_SPECS[entityType];
    return {
      streamId: `${connectionId}:${entityType}`,
      connectionId,
      spec,
      scope: extras.scope ?? {},
      intervalMs: settings.intervalMs ?? spec.defaultIntervalMs,
      initialSync: settings.initialSync,
      ...(extras.exportIds ? { trackedIds: extras.exportIds } : {}),
      ...(extras.products ? { products: extras.products } : {}),
      ...(priceHorizonDays ? { priceHorizonDays } : {}),
    };
  });
  // Spread over the interval by the requests their polls make, so a connection's streams do
  // not all fall due together, nor one stream's several requests come at one instant.
  const phases = streamPhasesMs(
    unphased.map(pollSlotsOf),
    unphased.map((d) => d.intervalMs),
  );
  const definitions = unphased.map((d, index) => ({ ...d, phaseMs: phases[index]! }));
  return withSweepSlots(connectionId, definitions);
}

/** `definitions` of one connection, each that sweeps with its sweep slots ({@link sweepSlotsOf}). */
function withSweepSlots(
  connectionId: string,
  definitions: readonly StreamDefinition[],
): StreamDefinition[] {
  const swept = definitions.flatMap((d) => {
    const sweepIntervalMs = sweepIntervalOf(d.spec);
    if (sweepIntervalMs === undefined) return [];
    return [{ ...d, phaseMs: d.phaseMs ?? 0, sweepIntervalMs }];
  });
  const slots = sweepSlotsOf(connectionId, swept);
  return definitions.map((d) => {
    const sweepSlots = slots.get(d.streamId);
    return sweepSlots === undefined ? d : { ...d, sweepSlots };
  });
}

function historyStartOf(text: string, nowMs: number): number {
  const ago = parseDuration(text);
  return ago === undefined ? Date.parse(text) : nowMs - ago;
}
