import { fileURLToPath } from 'node:url';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { z } from 'zod';
import { EntityTypeSchema } from '../shared/changes/entity-types.ts';
import { withoutReservedId } from '../shared/connections/connection.ts';
import { parseDuration } from '../shared/duration.ts';
import { parseOrThrow } from '../shared/errors.ts';
import { POLL_INTERVAL_MAX_MS, WINDOW_MARGIN_MAX_MS } from '../shared/polling/poll-settings.ts';
import { PRICE_HORIZON_MAX_DAYS } from '../shared/polling/strategies/product-prices.ts';
import { ExportIdSchema, ProductTargetTextSchema } from '../shared/polling/tracked-targets.ts';
import { DEFAULT_EVENT_SOURCE, EventSourceSchema } from '../shared/publish/event-bridge-entry.ts';
import { FAILING_AFTER_FAILURES } from '../shared/webhooks/retry-policy.ts';

/** The repository's `functions/` folder, where the four Lambda entry files live. */
export const DEFAULT_FUNCTIONS_DIR = fileURLToPath(new URL('../functions/', import.meta.url));

/**
 * CloudWatch Logs' retention values. Not `RetentionDays.INFINITE` (9999): CDK's sentinel, no
 * CloudWatch value, which leaves a log group without retention, keeping guest data in its
 * logs for ever.
 */
const RETENTION_DAYS = new Set<number>(
  Object.values(RetentionDays).filter(
    (v): v is number => typeof v === 'number' && v !== RetentionDays.INFINITE,
  ),
);

/** A connection id: it names a Secrets Manager secret and prefixes stream ids (`main:customer`). */
export const ConnectionIdSchema = withoutReservedId(
  z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'use 1-40 lowercase letters, digits or dashes'),
);

/** One connection (one set of Connector API credentials) the bridge polls. */
export const ConnectionSchema = z
  .object({
    id: ConnectionIdSchema,
    description: z.string().max(200).optional(),
  })
  // As the props around it: a key it does not take (`entities`, a misspelt `descripton`) would
  // be dropped unsaid, and the connection polled as if it were not there.
  .strict();

/** Where the poller publishes change events (the `PUBLISH_TARGETS` variable). */
export const PublishTargetsSchema = z.enum(['eventbridge', 'sqs', 'both']);

/** A duration as the handlers parse it (`30s`, `5m`, `1h`). */
const DurationTextSchema = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'use a duration like 30s, 5m, 1h');

/** A window's overlap or settle lag as text: a duration of at most a day (poll-settings.ts). */
const WindowMarginTextSchema = DurationTextSchema.refine(
  (text) => (parseDuration(text) ?? 0) <= WINDOW_MARGIN_MAX_MS,
  'must be at most 1d',
);

/**
 * Messages per dispatcher invocation (SQS event source batch size): the default endpoint
 * concurrency (16, shared/webhooks/endpoint-settings.ts), so one invocation can keep one
 * endpoint's window full. Above 10, Lambda requires a batching window.
 */
export const DISPATCH_BATCH_SIZE = 16;
/** Longest wait to fill a dispatcher batch (Lambda's minimum when the batch size is above 10). */
export const DISPATCH_BATCHING_WINDOW_SECONDS = 1;
/** Records per dispatcher batch from a FIFO dispatch queue (Lambda's most; no batching window there). */
export const FIFO_DISPATCH_BATCH_SIZE = 10;
/** Time a dispatcher batch needs besides its HTTP requests (store, queue, events). */
const DISPATCH_TIMEOUT_MARGIN_MS = 10_000;

/**
 * Properties of the {@link ChangeBridge} construct, validated when the construct is built.
 * Every field has a production default.
 */
export const ChangeBridgePropsSchema = z
  .object({
    /**
     * A starting set of connections, each with its own Secrets Manager secret (the migration
     * path from connections as props). Optional: connections are data, added at run time
     * with `change-bridge connections add` and no deploy; their tokens live sealed in the
     * state table under {@link ChangeBridgeState.connectionTokenKey}.
     */
    connections: z
      .array(ConnectionSchema)
      .max(20, 'add more connections at run time (`connections add`), not as props')
      .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'ids must be unique')
      .default([]),
    /** Prefix of the connection secrets' names: `<prefix>/connections/<id>`. */
    secretNamePrefix: z
      .string()
      .regex(/^[A-Za-z0-9/_+=.@-]{1,200}$/)
      .default('change-bridge'),
    /** How often the planner runs, in minutes (EventBridge Scheduler `rate`). */
    pollRateMinutes: z.number().int().min(1).max(1440).default(1),
    /**
     * `POLL_INTERVAL` per stream; defaults to the planner rate. At least that rate: the planner
     * plans up to its next run, so a stream is polled at most once per run.
     */
    pollInterval: DurationTextSchema.refine(
      (text) => (parseDuration(text) ?? 0) <= POLL_INTERVAL_MAX_MS,
      'must be at most 1d',
    ).optional(),
    /** `POLL_OVERLAP` and `POLL_SETTLE_LAG`: at most a day each. */
    pollOverlap: WindowMarginTextSchema.optional(),
    pollSettleLag: WindowMarginTextSchema.optional(),
    /** Entity types to poll (`POLL_ENTITIES`); the poller's default set when absent. */
    pollEntities: z.array(EntityTypeSchema).min(1).optional(),
    /** Export ids the poller tracks (`POLL_EXPORT_IDS`). */
    pollExportIds: z.array(ExportIdSchema).min(1).optional(),
    /** Products whose prices the poller tracks (`POLL_PRODUCT_IDS`): `uuid` or `uuid@Europe/Prague` (the enterprise time zone). */
    pollProductIds: z.array(ProductTargetTextSchema).min(1).optional(),
    /** Days ahead, today included, each product is priced over (`POLL_PRICE_HORIZON_DAYS`): 1 to 100, 30 when absent. */
    pollPriceHorizonDays: z.number().int().min(1).max(PRICE_HORIZON_MAX_DAYS).optional(),
    initialSync: z.enum(['baseline', 'emit']).default('baseline'),
    publishTargets: PublishTargetsSchema.default('eventbridge'),
    /** Makes the events queue (created when `publishTargets` includes `sqs`) a high-throughput FIFO queue. */
    eventsQueueFifo: z.boolean().default(false),
    /**
     * Makes the two dispatch queues FIFO queues grouped by entity, so two events of one
     * subject are never handed to two dispatcher containers at once; retries then go to a
     * standard queue of their own (FIFO queues have no per-message delay). Opt-in: switching
     * an existing stack replaces its dispatch queues (drain them first).
     */
    dispatchQueueFifo: z.boolean().default(false),
    /**
     * `source` of every published event: 1 to 256 characters, not starting with `aws.`
     * (PutEvents would refuse every event).
     */
    eventSource: EventSourceSchema.default(DEFAULT_EVENT_SOURCE),
    /**
     * Which events the poller puts on the bus (`PUBLISH_EVENT_BUS_MODE`): `matched`, those
     * some rule on the bus matches (rules listed every 60 s), or `all`. The archive, when
     * on, makes it `all`. Webhooks never depend on it: the dispatch queue gets every event.
     */
    eventBusMode: z.enum(['matched', 'all']).default('matched'),
    /**
     * Archives every event on the bus for `aws events start-replay` (opt-in: $0.10 per GB
     * ingested; `events replay` works from the state table without it).
     */
    eventArchive: z.boolean().default(false),
    /** Days the event archive (when `eventArchive`) keeps events; 0 keeps them indefinitely. */
    archiveRetentionDays: z.number().int().min(0).max(3650).default(30),
    /** Days the functions' and the admin API's log groups keep their logs: never for ever. */
    logRetentionDays: z
      .number()
      .refine(
        (days) => RETENTION_DAYS.has(days),
        'must be a CloudWatch Logs retention value (1 to 3653 days; logs are never kept for ever)',
      )
      .default(RetentionDays.ONE_MONTH),
    deliveryTimeoutMs: z.number().int().min(1000).max(30_000).default(10_000),
    /** Consecutive failed attempts to an endpoint before `delivery.failing` (`WEBHOOK_FAILING_AFTER`). */
    endpointFailingAfter: z.number().int().min(1).max(1000).default(FAILING_AFTER_FAILURES),
    /**
     * How long an endpoint may fail without a success before its subscription is disabled
     * (`subscription.disabled`; `WEBHOOK_DISABLE_AFTER`): a duration such as `5d` or `12h`.
     */
    endpointDisableAfter: z
      .string()
      .refine((text) => (parseDuration(text) ?? 0) >= 1000, {
        message: 'must be a duration of at least 1s, such as 5d or 12h',
      })
      .default('5d'),
    /** Most concurrent pollers (Lambda SQS `maxConcurrency`, 2 to 1000). */
    pollerMaxConcurrency: z.number().int().min(2).max(1000).default(5),
    /** Most concurrent dispatchers (Lambda SQS `maxConcurrency`, 2 to 1000). */
    dispatcherMaxConcurrency: z.number().int().min(2).max(1000).default(10),
    /**
     * Most concurrent dispatchers on the bulk dispatch queue (bulk work's events: a first sync
     * or backfill that emits), beside `dispatcherMaxConcurrency`'s on the live one; 2 to 1000.
     * A backfill's webhooks go about as fast as this many containers deliver them.
     */
    bulkDispatcherMaxConcurrency: z.number().int().min(2).max(1000).default(5),
    pollerTimeoutSeconds: z.number().int().min(10).max(900).default(120),
    /**
     * The dispatcher's Lambda timeout: deliveries to one endpoint within a batch go in order, so
     * it must outlast a batch of timed-out deliveries (checked below).
     */
    dispatcherTimeoutSeconds: z.number().int().min(10).max(900).default(180),
    /** E-mail address subscribed to the alarm topic (confirmation needed). */
    alarmEmail: z.email().optional(),
    /**
     * Sends `WatermarkAgeSeconds` per stream (`STREAM_METRICS`), for the dashboard's graph of the
     * oldest streams: one custom metric per stream, $0.30 a month each for the first 10,000 and
     * $0.10 beyond (13 per property). Turn it off for thousands of properties: the watermark age
     * alarm reads `OldestWatermarkAgeSeconds` either way, and `GET /streams` shows each stream.
     */
    streamMetrics: z.boolean().default(true),
    /** Alarm when the oldest stream watermark is older than this. */
    watermarkAgeAlarmSeconds: z.number().int().min(60).default(900),
    /** Alarm when more than this share of delivery attempts fails over 15 minutes. */
    deliveryFailureAlarmPercent: z.number().min(1).max(100).default(20),
    /**
     * `POWERTOOLS_SERVICE_NAME` and the `service` dimension of custom metrics (a CloudWatch
     * dimension value: at most 255 characters).
     */
    serviceName: z.string().min(1).max(255).default('change-bridge'),
    /** `POWERTOOLS_METRICS_NAMESPACE` of custom metrics. */
    metricsNamespace: z
      .string()
      .regex(/^[A-Za-z0-9._/#:-]{1,255}$/)
      .default('ChangeBridge'),
    /** Folder holding planner.ts, poller.ts, dispatcher.ts and admin-api.ts. */
    functionsDir: z.string().min(1).default(DEFAULT_FUNCTIONS_DIR),
  })
  .strict()
  .refine(
    (props) =>
      props.dispatcherTimeoutSeconds * 1000 >=
      DISPATCH_BATCH_SIZE * props.deliveryTimeoutMs + DISPATCH_TIMEOUT_MARGIN_MS,
    {
      path: ['dispatcherTimeoutSeconds'],
      message: `must cover a batch of ${DISPATCH_BATCH_SIZE} deliveries to one hanging endpoint (batch × deliveryTimeoutMs + 10 s)`,
    },
  )
  .superRefine((props, context) => {
    const intervalMs =
      props.pollInterval === undefined ? undefined : parseDuration(props.pollInterval);
    if (intervalMs === undefined || intervalMs >= props.pollRateMinutes * 60_000) return;
    const rate = `${props.pollRateMinutes} minute${props.pollRateMinutes === 1 ? '' : 's'}`;
    context.addIssue({
      code: 'custom',
      path: ['pollInterval'],
      message: `must be at least the planner's rate, ${rate} (pollRateMinutes): each stream is polled at most once per planner run; lower pollRateMinutes or leave pollInterval out`,
    });
  });

/** What a user passes to {@link ChangeBridge}: defaults are optional. */
export type ChangeBridgeProps = z.input<typeof ChangeBridgePropsSchema>;

/** The props after validation, with every default filled in. */
export type ChangeBridgeConfig = z.output<typeof ChangeBridgePropsSchema>;

/** One connection entry. */
export type Connection = z.infer<typeof ConnectionSchema>;

/**
 * Validates construct props and fills defaults.
 * @throws ValidationError naming the offending field (e.g. `connections[0].id`).
 * @example resolveChangeBridgeProps({ connections: [{ id: 'main' }] }).pollRateMinutes // 1
 */
export function resolveChangeBridgeProps(props: unknown): ChangeBridgeConfig {
  return parseOrThrow(ChangeBridgePropsSchema, props, 'ChangeBridge props');
}

/** `POLL_INTERVAL` as the functions get it: the `pollInterval` prop, else the planner's rate. */
export function pollIntervalText(config: ChangeBridgeConfig): string {
  return config.pollInterval ?? plannerRateText(config);
}

/** `PLANNER_RATE` as the planner gets it: its schedule's rate, how far ahead it plans. */
export function plannerRateText(config: ChangeBridgeConfig): string {
  return `${config.pollRateMinutes * 60}s`;
}

/** True when the poller publishes to the SQS events queue, which then has to exist. */
export function publishesToSqs(config: ChangeBridgeConfig): boolean {
  return config.publishTargets !== 'eventbridge';
}
