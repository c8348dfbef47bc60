/**
 * Names of the custom metrics the alarms and the dashboard read. The handlers publish
 * them with Powertools Metrics (EMF) under `POWERTOOLS_METRICS_NAMESPACE`; Powertools adds
 * the `service` dimension (`POWERTOOLS_SERVICE_NAME`) to each. This file imports nothing
 * so that a handler can import it without pulling aws-cdk-lib into its bundle.
 */
export const BRIDGE_METRICS = {
  /**
   * Seconds between now and a stream's watermark, per stream (`Stream` dimension), published by
   * the poller after each window: the dashboard's per-stream graph.
   */
  watermarkAgeSeconds: 'WatermarkAgeSeconds',
  /** The oldest watermark age among a poll job's streams, no stream dimension: the alarm's. */
  oldestWatermarkAgeSeconds: 'OldestWatermarkAgeSeconds',
  /** Poll windows that failed (connector error, bad page, publish failure), from the poller. */
  pollFailures: 'PollFailures',
  /** Readings of records a poll set aside for breaking their schema (their changes not published), from the poller. */
  recordsSetAside: 'RecordsSetAside',
  /**
   * Streams a poll job found parked by an authorization error (or parked itself), from the
   * poller: one per parked stream each time it comes due, so it lasts while the stream does.
   */
  streamsParked: 'StreamsParked',
  /**
   * Events a publisher did not publish, with `target`, `eventType` and `reason` dimensions (see
   * EmfPublishMetrics), from the poller, the dispatcher and the admin API.
   */
  eventsFailed: 'EventsFailed',
  /** Connector requests a poll job made, from the poller. */
  connectorRequests: 'ConnectorRequests',
  /** Connector answers of 429 (the token's budget spent on the server's count), from the poller. */
  connectorThrottled: 'ConnectorThrottled',
  /**
   * The share of its token's budget (requests in the sliding window ÷ the limit granted, in
   * percent) a poll job's connection had used at the job's end, from the poller.
   */
  connectorBudgetUsedPercent: 'ConnectorBudgetUsedPercent',
  /** Delivery attempts answered with a 2xx, from the dispatcher. */
  deliveriesSucceeded: 'DeliveriesSucceeded',
  /** Delivery attempts that failed (non-2xx, timeout, network), from the dispatcher. */
  deliveriesFailed: 'DeliveriesFailed',
  /** Dispatch queue messages that were not an event and were dropped, from the dispatcher. */
  dispatchMessagesMalformed: 'DispatchMessagesMalformed',
} as const;

/** The dimension that names the stream (`<connectionId>:<entityType>`) on per-stream metrics. */
export const STREAM_DIMENSION = 'Stream';

/** The dimension Powertools Metrics adds to every metric, valued with the service name. */
export const SERVICE_DIMENSION = 'service';
