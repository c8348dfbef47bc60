import { z } from 'zod';
import { EventTypeSchema } from '../changes/catalogue.ts';
import { EntityTypeSchema } from '../changes/entity-types.ts';
import { splitCommaText } from '../comma-list.ts';
import { ConnectionIdSchema, ConnectionViewSchema } from '../connections/connection.ts';
import { ConnectionDetailSchema } from '../connections/connection-detail.ts';
import { EventCursorSchema } from '../webhooks/event-cursor.ts';
import { LIST_LIMIT_MAX } from '../webhooks/list-limit.ts';
import { EventPatternsInputSchema, SubscriptionSchema } from '../webhooks/subscription.ts';
import {
  CreateSubscriptionInputSchema,
  UpdateSubscriptionInputSchema,
} from '../webhooks/subscription-admin.ts';
import { CONNECTION_CURSOR_MAX_CHARS, ConnectionCursorSchema } from './connection-cursor.ts';
import { AttemptViewSchema, DeliveryViewSchema } from './delivery-view.ts';
import { STREAM_CURSOR_MAX_CHARS, StreamCursorSchema } from './stream-cursor.ts';

/*
 * Request and response schemas of the admin API. The router validates every input with
 * them and the OpenAPI document is generated from them, so the two cannot drift. Request
 * bodies are strict: a misspelt field is a 400 naming it, not a silently ignored option.
 */

/**
 * Event type patterns of a subscription: an array, or comma-separated text
 * (`'customer.*,resource.updated'`). An invalid item is named by index (`events[1]`).
 */
export const EventPatternListSchema = z.preprocess(splitCommaText, EventPatternsInputSchema).meta({
  description:
    "Event type patterns; comma-separated text such as 'customer.*,resource.updated' is accepted too",
});

/** Entity types: an array, or comma-separated text (`customer,resource`). */
export const EntityTypeListSchema = z
  .preprocess(splitCommaText, z.array(EntityTypeSchema).min(1))
  .meta({
    description: "Entity types; comma-separated text such as 'customer,resource' is accepted too",
  });

/**
 * The longest id the routes take, in a path or a query: every id the bridge gives is far
 * shorter, and DynamoDB refuses a key over 2048 bytes (partition) or 1024 (sort) with a
 * ValidationException, a 500 here, so a longer one names nothing.
 */
export const ID_MAX_LENGTH = 256;

/** An id named by a query parameter or a body field: 400 naming it when longer than any id. */
const IdInputSchema = z
  .string()
  .min(1)
  .max(ID_MAX_LENGTH, { error: `must be at most ${ID_MAX_LENGTH} characters: no id is longer` });

/** A `limit` query parameter from 1 to `max`: plain digits (not `1e2`, `0x10` or ` 5`). */
export function limitQuerySchema(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .preprocess(
      (value) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value),
      z
        .number({ error: message })
        .int({ error: message })
        .positive({ error: message })
        .max(max, { error: message }),
    )
    .optional();
}

/** The `limit` query parameter of list routes: plain digits (not `1e2`, `0x10` or ` 5`). */
export const LimitQuerySchema = limitQuerySchema(LIST_LIMIT_MAX);

/**
 * The most streams one answer of `GET /streams` holds, its `limit`'s maximum and in AWS its
 * default: a stream's view is about 0.5 KB of JSON, so 4,000 are about 2 MB; an answer also
 * ends before its JSON passes the deployment's byte bound (AdminDeps.streamListBytes, 4 MB in
 * AWS), whatever its streams' errors weigh.
 */
export const STREAM_PAGE_MAX = 4000;

/** Body of `POST /subscriptions`. */
export const CreateSubscriptionBodySchema = CreateSubscriptionInputSchema.extend({
  events: EventPatternListSchema.optional(),
}).strict();

/** Body of `PATCH /subscriptions/{id}`. */
export const UpdateSubscriptionBodySchema = UpdateSubscriptionInputSchema.extend({
  events: EventPatternListSchema.optional(),
}).strict();

/** Body of `POST /subscriptions/{id}/redeliver`: dead letters since this instant. */
export const RedeliverBodySchema = z.object({ since: z.iso.datetime({ offset: true }) }).strict();

/** Body of `POST /subscriptions/{id}/resync`: the entity types whose snapshots are sent. */
export const ResyncBodySchema = z.object({ entities: EntityTypeListSchema }).strict();

/** Query of `GET /events`. */
export const ListEventsQuerySchema = z
  .object({
    type: z
      .enum(EventTypeSchema.options, {
        error: 'must be an event type such as customer.updated (README, Events)',
      })
      .optional(),
    limit: LimitQuerySchema,
    cursor: z
      .string()
      .refine((text) => EventCursorSchema.safeParse(text).success, {
        error: 'must be a nextCursor a previous page gave',
      })
      .optional()
      .meta({
        description:
          "The page after a previous one: that page's nextCursor, opaque (it encodes where that page ended in the list, which every caller may read whole)",
      }),
  })
  // A misspelt filter (`types`) would list every event as if it had filtered: refused, named.
  .strict();

/** Body of `POST /events/{id}/replay`: one subscription, or every matching one when absent. */
export const ReplayBodySchema = z
  .object({
    subscriptionId: IdInputSchema.optional().meta({
      description:
        'Only this subscription; it must take the event (its type, scope and changed-field filters) or have been sent it before (a ping, a snapshot), else 400',
    }),
  })
  .strict();

/** Query of `GET /deliveries`. */
export const ListDeliveriesQuerySchema = z
  .object({
    subscription: IdInputSchema.optional(),
    event: IdInputSchema.optional(),
    limit: LimitQuerySchema,
  })
  // `subscriptionId=` would list every subscription's deliveries as if filtered: refused, named.
  .strict();

/** Body of `POST /backfill`: which entity types (default: every polled one), and whether to emit `created` events. */
export const BackfillBodySchema = z
  .object({
    entities: EntityTypeListSchema.optional(),
    /** Only these connections' streams (default: every enabled connection's). */
    connections: z
      .preprocess(splitCommaText, z.array(ConnectionIdSchema).min(1))
      .meta({
        description:
          "Connection ids; comma-separated text such as 'local,chain-eu' is accepted too",
      })
      .optional(),
    emit: z.boolean().default(false),
  })
  .strict();

/** No query parameters, or no body. */
export const EmptySchema = z.object({}).strict();

/**
 * Every error response: a message, the offending field for a 400, and for a 409 about some of
 * the request's fields (an add whose id is taken by a different definition) those fields, as
 * the message names them.
 */
export const ErrorBodySchema = z.object({
  error: z.string(),
  field: z.string().optional(),
  fields: z.array(z.string()).optional(),
});

/** A subscription as the API shows it: no secrets. */
export const SubscriptionViewSchema = SubscriptionSchema.omit({
  secret: true,
  previousSecrets: true,
  previousSecret: true,
  previousSecretExpiresAt: true,
  version: true,
});

/** A subscription with its new secret, shown once (create, rotate-secret). */
export const SubscriptionWithSecretSchema = SubscriptionViewSchema.extend({
  // A pattern, not startsWith: its JSON Schema would carry `format: starts_with`, no format.
  secret: z.string().regex(/^whsec_/),
});

/** `GET /subscriptions`. */
export const SubscriptionListSchema = z.object({ subscriptions: z.array(SubscriptionViewSchema) });

/** A delivery with its attempt log. */
export const DeliveryWithAttemptsSchema = z.object({
  delivery: DeliveryViewSchema,
  attempts: z.array(AttemptViewSchema),
});

/** New deliveries (replay, redeliver, ping). */
export const DeliveryListSchema = z.object({ deliveries: z.array(DeliveryViewSchema) });

/** `POST /subscriptions/{id}/ping`: the delivery of the ping event. */
export const PingResultSchema = z.object({ delivery: DeliveryViewSchema });

/** `GET /deliveries`. */
export const DeliveryLogSchema = z.object({ deliveries: z.array(DeliveryWithAttemptsSchema) });

/** One stored event in the event list. */
export const EventSummarySchema = z.object({
  id: z.string(),
  type: z.string(),
  storedAt: z.string(),
});

/** `GET /events`. */
export const EventListSchema = z.object({
  events: z.array(EventSummarySchema),
  /** Present when the page is full: pass it as `cursor` for the next (older) page. */
  nextCursor: z.string().optional(),
});

/**
 * `GET /events/{id}`: the event exactly as delivered (CloudEvents JSON), its keys in the body's
 * order (design.md's Event: specversion, id, type, …). Parsing puts this shape's keys first:
 * they are listed in that order, and a reader printing the event keeps the body as received
 * (see `events show`).
 */
export const StoredEventBodySchema = z.looseObject({
  specversion: z.string().optional(),
  id: z.string(),
  type: z.string(),
});

/** `POST /subscriptions/{id}/resync`: how many snapshot events were sent. */
export const ResyncResultSchema = z.object({ sent: z.number().int().nonnegative() });

/** A window being paged through, as the streams view shows it. */
const WindowInProgressSchema = z.object({
  startUtc: z.string(),
  endUtc: z.string(),
  pages: z.number().int(),
});

/** One stream: its watermark, schedule and health. Times are ISO 8601 UTC. */
export const StreamViewSchema = z.object({
  id: z.string(),
  connectionId: z.string(),
  entityType: z.string(),
  /** Polled by this deployment (false: a stored state of a stream no longer configured). */
  configured: z.boolean(),
  /** How it is polled: windowed, windowed+sweep, snapshot, tracked-ids, product-prices; null when not configured. */
  strategy: z.string().nullable(),
  watermark: z.string().nullable(),
  lastPollAt: z.string().nullable(),
  lastSuccessAt: z.string().nullable(),
  nextDueAt: z.string().nullable(),
  /** now − watermark, in seconds; null before the first window. */
  lagSeconds: z.number().nullable(),
  consecutiveFailures: z.number().int(),
  lastError: z.string().nullable(),
  parked: z.boolean(),
  parkedReason: z.string().nullable(),
  initialSyncDone: z.boolean(),
  windowInProgress: WindowInProgressSchema.nullable(),
  /** Records read from the connector since the stream's state was created (a reset restarts it). */
  recordsRead: z.number().int().nonnegative(),
  /** Events the stream published since its state was created (a reset restarts it). */
  eventsPublished: z.number().int().nonnegative(),
  /**
   * Readings of records set aside since the state was created (a reset restarts it): records
   * that broke their schema, left out of their page while its other records were published. A
   * broken record read again (a window's overlap, a listing at each poll) counts again, as
   * `recordsRead` does. Absent from a bridge older than the field: read as 0.
   */
  recordsSetAside: z.number().int().nonnegative().default(0),
  /**
   * The latest record set aside: the error naming its field and the record (its Id, or its place
   * in the page), and when; kept until a reset (its change was not published). Null when none.
   */
  lastSetAside: z.object({ error: z.string(), at: z.string() }).nullable().default(null),
  /**
   * The backfill pass the stream runs beside its live polls (a backfill of a synced stream),
   * while it runs; null otherwise. Its window and watermark are its own, over the history.
   */
  backfillPass: z
    .object({
      jobId: z.string(),
      watermark: z.string().nullable(),
      windowInProgress: WindowInProgressSchema.nullable(),
      recordsRead: z.number().int().nonnegative(),
      eventsPublished: z.number().int().nonnegative(),
    })
    .nullable()
    .optional(),
});

/** The connector budget of one connection's AccessToken, as this process sees it. */
export const BudgetViewSchema = z.object({
  connectionId: z.string(),
  /** Requests granted in the last window (30 s plus the margin). */
  requestsInWindow: z.number().int().nonnegative(),
  /** Requests allowed per window now (lower for a while after a 429). */
  limit: z.number().int().positive(),
  /** Requests per window held back from bulk work for the live streams' polls. */
  liveReserve: z.number().int().nonnegative(),
  /** Requests waiting for a grant, by priority. */
  queued: z.object({ live: z.number().int(), bulk: z.number().int() }),
  /** Set while a 429's Retry-After holds every request back. */
  pausedUntil: z.string().nullable(),
});

/**
 * `GET /streams`: the streams by id, and the connector budget per connection where known (each
 * page those of its streams' connections).
 */
export const StreamListSchema = z.object({
  streams: z.array(StreamViewSchema),
  budgets: z.array(BudgetViewSchema).optional(),
  /** Present when streams after this page's are left out: pass it as `cursor` for the next page. */
  nextCursor: z.string().optional(),
});

/** What a backfill did since it started: records read, events published, webhooks delivered. */
export const BackfillCountsSchema = z.object({
  /** Records the backfill read from the connector (its pass's counters, or its first sync's). */
  recordsRead: z.number().int().nonnegative(),
  /** Events the backfill published. */
  eventsPublished: z.number().int().nonnegative(),
  /**
   * Succeeded deliveries of the streams' events detected since the job started (until a later
   * backfill or reset took a stream over), one per event and subscription: live changes of those
   * streams delivered meanwhile are counted too, events of an earlier sync still queued are not.
   */
  webhooksDelivered: z.number().int().nonnegative(),
  /** Deliveries of those events dead-lettered (retries exhausted, refused, subscription disabled). */
  webhooksDeadLettered: z.number().int().nonnegative(),
  /** Deliveries of those events made and neither delivered nor dead-lettered yet. */
  webhooksLeft: z.number().int().nonnegative(),
  /**
   * Events the streams published since the job started that the dispatcher has not handed to
   * the subscriptions yet (queued): their webhooks are not in `webhooksLeft` yet.
   */
  eventsQueued: z.number().int().nonnegative(),
});

/** Progress of one stream of a backfill. */
export const BackfillStreamProgressSchema = z.object({
  streamId: z.string(),
  entityType: z.string(),
  fraction: z.number().min(0).max(1).meta({
    description:
      "0..1: the records the stream's part read of those it is expected to read in all (`recordsExpected`); 0 while those are unknown, 1 once done. Bridges before this release answered the share of the history's time range here (now `rangeFraction`).",
  }),
  rangeFraction: z.number().min(0).max(1).optional().meta({
    description:
      "0..1 of the history's time range the part's windows covered (from the history start to where it ends): records do not come evenly over it. Absent from bridges before it was answered.",
  }),
  recordsExpected: z.number().int().nonnegative().nullable().optional().meta({
    description:
      "Records the part is expected to read in all: the density of records between window ends over the rest of the range, or before that is measured the records its stream's first sync read (`recordsAtFirstSync`); null while unknown. Absent from bridges before it was answered.",
  }),
  recordsAtFirstSync: z.number().int().nonnegative().nullable().optional().meta({
    description:
      "Records the stream's first sync read, when the backfill is a pass beside its live polls (about the records the pass reads again); null when the backfill is the stream's first sync. Absent from bridges before it was answered.",
  }),
  done: z.boolean(),
  watermark: z.string().nullable(),
  parked: z.boolean(),
  lastError: z.string().nullable(),
  /**
   * Why the stream's part ended without completing: `superseded` (a later backfill or reset of
   * the stream took over), `removed` (its connection was removed or disabled); null otherwise.
   */
  endedBy: z.enum(['superseded', 'removed']).nullable(),
  ...BackfillCountsSchema.shape,
});

/**
 * Where a job's streams stand, every stream counted whether `streams` lists it or not:
 * `reading` (not done, not parked), `parked`, `ended` (done without completing: `endedBy`),
 * `caughtUp` (done and completed); they add up to `total`.
 */
export const BackfillStreamCountsSchema = z.object({
  total: z.number().int().nonnegative(),
  reading: z.number().int().nonnegative(),
  parked: z.number().int().nonnegative(),
  ended: z.number().int().nonnegative(),
  caughtUp: z.number().int().nonnegative(),
});

/** The most streams `GET /backfill/{id}?streams=N` may ask for (a job holds fewer). */
export const BACKFILL_STREAMS_QUERY_MAX = 1_000_000;

/**
 * Query of `GET /backfill/{id}`: `streams=N` lists at most N of the job's streams (`0`: the
 * totals alone), chosen as {@link BackfillJobViewSchema} says.
 */
export const BackfillProgressQuerySchema = z
  .object({
    streams: z
      .preprocess(
        (value) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value),
        z
          .number({ error: `must be a whole number from 0 to ${BACKFILL_STREAMS_QUERY_MAX}` })
          .int()
          .min(0)
          .max(BACKFILL_STREAMS_QUERY_MAX, {
            error: `must be a whole number from 0 to ${BACKFILL_STREAMS_QUERY_MAX}`,
          }),
      )
      .optional()
      .meta({
        description:
          "At most this many streams in `streams` (0: the figures and streamCounts alone); those still reading first, then parked, then ended without completing, then caught up. Default: every stream, up to the deployment's byte bound (4 MB in AWS)",
      }),
  })
  .strict();

/** A backfill job and its progress (`POST /backfill`, `GET /backfill/{id}`). */
export const BackfillJobViewSchema = z.object({
  id: z.string(),
  startedAt: z.string(),
  emit: z.boolean(),
  fraction: z.number().min(0).max(1).meta({
    description:
      "0..1 of the work done: the least of the reading's share (`readFraction`) and the webhooks delivered or dead-lettered of those the events published and still to read make; 0 while the records to read are unknown (`readFraction` null). Bridges before this release answered the mean of the streams' shares of the history's time range here (now `rangeFraction`).",
  }),
  rangeFraction: z.number().min(0).max(1).optional().meta({
    description:
      "Mean of the streams' `rangeFraction` (shares of the history's time range read). Absent from bridges before it was answered.",
  }),
  readFraction: z.number().min(0).max(1).nullable().optional().meta({
    description:
      "Mean of the streams' `fraction` (records read of those expected), 1 once done; null while a stream's records expected are unknown. Absent from bridges before it was answered.",
  }),
  readEtaSeconds: z.number().int().nonnegative().nullable().optional().meta({
    description:
      "Seconds the reading has left: the longest of the running streams' records left at their records read per second (over the last 30 s of this process's readings, or since the start); null while unknown. Absent from bridges before it was answered.",
  }),
  deliveryEtaSeconds: z.number().int().nonnegative().nullable().optional().meta({
    description:
      'Seconds the webhooks left take (those made, those of the events queued and of the events the records still to read will publish): while the reading runs, those delivered in the time it has left at the webhooks delivered or dead-lettered per second, then the rest at `deliveryRateAfterRead` (before this release, all of them at the rate seen while reading, which an unpaced reading sharing the process holds down: three times too long in the first minute); once read, at the webhooks delivered or dead-lettered per second; null while unknown. Absent from bridges before it was answered.',
  }),
  deliveryRateAfterRead: z.number().nonnegative().nullable().optional().meta({
    description:
      'Webhooks per second the deliveries are expected to reach once the reading ends (they take what the reading took): the geometric mean of the rate seen while reading (the least they reach) and the rate the reading makes webhooks, when higher (the most: a webhook costs at least what the record that makes it does; a reading that makes them no faster than they go waits on them, and the two meet); null while unknown and once read. An unpaced reading sharing the process (`npm start`) holds the deliveries down; in AWS, where they run apart, this may run high in the first minute. Absent from bridges before it was answered.',
  }),
  webhooksPerEvent: z.number().nonnegative().nullable().optional().meta({
    description:
      'Deliveries made per event the dispatcher handed on (the subscriptions an event goes to); null until it handed one on. Absent from bridges before it was answered.',
  }),
  webhooksToDeliver: z.number().int().nonnegative().optional().meta({
    description:
      'Webhooks still to deliver: those made and neither delivered nor dead-lettered (`webhooksLeft`) and those the events queued will make once handed on (`eventsQueued` times `webhooksPerEvent`, one each while that is null), rounded; an estimate while events are queued. Absent from bridges before it was answered.',
  }),
  /** Every stream's part has ended: the reading is done (webhooks may still be on their way). */
  done: z.boolean(),
  /**
   * Done, and every webhook of the events counted is delivered or dead-lettered: no event
   * queued (`eventsQueued` 0) and no delivery left (`webhooksLeft` 0).
   */
  deliveryDone: z.boolean(),
  /**
   * The job's streams in its order; with some left out (`streamsLeftOut`: the `streams` query
   * parameter, or the answer's byte bound in AWS), those listed are chosen still reading first,
   * then parked, then ended without completing, then caught up.
   */
  streams: z.array(BackfillStreamProgressSchema),
  /** Where every stream of the job stands (absent from bridges before it was answered). */
  streamCounts: BackfillStreamCountsSchema.optional(),
  /** Streams of the job not in `streams` (absent from bridges before it was answered: none). */
  streamsLeftOut: z.number().int().nonnegative().optional(),
  /** Sums over the streams. */
  ...BackfillCountsSchema.shape,
  /** Seconds from the start to when the last stream's part ended, or to now while one runs. */
  elapsedSeconds: z.number().int().nonnegative(),
  /** When the last stream's part ended; null while one still runs. */
  finishedAt: z.string().nullable(),
  etaSeconds: z.number().int().nonnegative().nullable().meta({
    description:
      "Seconds until the job's webhooks are all delivered or dead-lettered (`deliveryDone`): the larger of `readEtaSeconds` and `deliveryEtaSeconds`; null while either is unknown (\"estimating\"), 0 once delivery is done. Bridges before this release answered the reading's time alone, at the pace of the history's time range.",
  }),
});

/** `GET /health`. */
export const HealthSchema = z.object({ status: z.literal('ok'), time: z.string() });

/** `GET /openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiDocumentSchema = z.looseObject({ openapi: z.string() });

export { ConnectionViewSchema };

/**
 * The most connections one answer of `GET /connections` holds, its `limit`'s maximum and in AWS
 * its default: a connection's view is about 0.35 KB of JSON, 0.4 KB with its parkedStreams
 * (0.5 KB with a parked stream's reason), so 4,000 are about 1.6 to 2 MB; an
 * answer also ends before its JSON passes the deployment's byte bound (4 MB in AWS), whatever
 * its connections' product and export ids weigh.
 */
export const CONNECTION_PAGE_MAX = 4000;

/**
 * `GET /connections`: the connections (never with a token), each with its parked streams as
 * `GET /connections/{id}` gives them; `nextCursor` while more follow.
 */
export const ConnectionListSchema = z.object({
  connections: z.array(ConnectionDetailSchema),
  nextCursor: z.string().optional(),
});

/**
 * Query of `GET /connections`: `limit` and `cursor` for a page of them, as `GET /streams`
 * pages; `parkedStreams=false` leaves out the connections' parked streams and their reads.
 */
export const ConnectionListQuerySchema = z
  .object({
    limit: limitQuerySchema(CONNECTION_PAGE_MAX).meta({
      description: `At most this many connections (the environment's first, then the stored ones by id); default: the deployment's bound (${CONNECTION_PAGE_MAX} in AWS, none locally). A page also ends before its answer passes the deployment's byte bound (4 MB in AWS)`,
    }),
    cursor: z
      .string()
      .max(CONNECTION_CURSOR_MAX_CHARS, { error: 'must be a nextCursor a previous page gave' })
      .refine((text) => ConnectionCursorSchema.safeParse(text).success, {
        error: 'must be a nextCursor a previous page gave',
      })
      .optional()
      .meta({
        description:
          "The page after a previous one: that page's nextCursor, opaque (it encodes the last connection id that page held, in the list every caller may read whole)",
      }),
    parkedStreams: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => value !== 'false')
      .meta({
        description:
          "false: the connections without their parkedStreams, and no read of their stream states (the page's cost without them), for a caller that reads GET /streams itself, as the console does. Default true",
      }),
  })
  .strict();

/**
 * Query of `GET /streams`: `connectionId` for one connection's streams and budget instead of
 * all; `limit` and `cursor` for a page of them, as `GET /events` pages.
 */
export const StreamListQuerySchema = z
  .object({
    connectionId: ConnectionIdSchema.optional(),
    limit: limitQuerySchema(STREAM_PAGE_MAX).meta({
      description: `At most this many streams (by id); default: the deployment's bound (${STREAM_PAGE_MAX} in AWS, none locally). A page also ends before its answer passes the deployment's byte bound (4 MB in AWS)`,
    }),
    cursor: z
      .string()
      .max(STREAM_CURSOR_MAX_CHARS, { error: 'must be a nextCursor a previous page gave' })
      .refine((text) => StreamCursorSchema.safeParse(text).success, {
        error: 'must be a nextCursor a previous page gave',
      })
      .optional()
      .meta({
        description:
          "The page after a previous one: that page's nextCursor, opaque (it encodes the last stream id that page held, in the list every caller may read whole)",
      }),
  })
  // A misspelt filter would list every stream as if it had filtered: refused, named.
  .strict();

/** Query of `DELETE /connections/{id}`: `keepState=true` keeps the streams' state and snapshots. */
export const RemoveConnectionQuerySchema = z
  .object({
    keepState: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => value === 'true'),
  })
  // A misspelt keepState (`keep-state=true`) would delete the state it meant to keep.
  .strict();

/** `DELETE /connections/{id}`: what was removed. */
export const ConnectionRemovedSchema = z.object({
  id: z.string(),
  removed: z.literal(true),
  /** Streams whose state and snapshots were deleted (0 with keepState). */
  streamsDeleted: z.number().int().nonnegative(),
  /**
   * `done`: the streams' state and snapshots are gone (and with keepState); `background` (AWS):
   * the streams are hidden and unpolled now, their snapshots and state deleted by the pollers'
   * purge within minutes. Absent from bridges older than it.
   */
  stateDeletion: z.enum(['done', 'background']).optional().meta({
    description:
      "'done': the streams' state and snapshots are gone (or kept, with keepState); 'background' (AWS): the streams are hidden and no longer polled now, their snapshots and state deleted in the background within minutes (a connection added again with the id starts afresh at once)",
  }),
});
