import type { ResolvedLengths } from '../environment-limit.ts';
import { type ChangeBridgeConfig, pollIntervalText } from '../props.ts';
import type { ChangeBridgeState } from '../stateful.ts';

/**
 * The environment every handler reads (names fixed by the handlers' zod schemas). Each value
 * the stack resolves at deploy time goes through `lengths`, which bounds it for the check
 * against Lambda's 4 KB.
 */
export function bridgeEnvironment(
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
  lengths: ResolvedLengths,
): Record<string, string> {
  const connectionIds = [...state.connectionSecrets.keys()];
  const optional: Record<string, string | undefined> = {
    // The props' connections and their secrets' names (`<prefix>/connections/<id>`): an ARN per
    // connection would not fit Lambda's 4 KB for 20 connections of long ids.
    CONNECTION_IDS: connectionIds.length > 0 ? connectionIds.join(',') : undefined,
    CONNECTION_SECRET_PREFIX: connectionIds.length > 0 ? config.secretNamePrefix : undefined,
    PUBLISH_QUEUE_URL: state.eventsQueue && lengths.queueUrl(state.eventsQueue),
    // Where the dispatcher sends delivery messages when the dispatch queues are FIFO.
    DISPATCH_RETRY_QUEUE_URL:
      state.dispatchRetryQueue && lengths.queueUrl(state.dispatchRetryQueue),
    POLL_OVERLAP: config.pollOverlap,
    POLL_SETTLE_LAG: config.pollSettleLag,
    POLL_ENTITIES: config.pollEntities?.join(','),
    POLL_EXPORT_IDS: config.pollExportIds?.join(','),
    POLL_PRODUCT_IDS: config.pollProductIds?.join(','),
    POLL_PRICE_HORIZON_DAYS: config.pollPriceHorizonDays?.toString(),
  };
  return {
    STATE_TABLE_NAME: lengths.tableName(state.table),
    EVENT_BUS_NAME: lengths.busName(state.bus),
    EVENT_SOURCE: config.eventSource,
    POLL_JOB_QUEUE_URL: lengths.queueUrl(state.pollJobQueue),
    DISPATCH_QUEUE_URL: lengths.queueUrl(state.dispatchQueue),
    // Bulk work's events go here (publisher), and the dispatcher knows its batches by the ARN.
    BULK_DISPATCH_QUEUE_URL: lengths.queueUrl(state.bulkDispatchQueue),
    BULK_DISPATCH_QUEUE_ARN: lengths.queueArn(state.bulkDispatchQueue),
    PUBLISH_TARGETS: config.publishTargets,
    // The poller's publisher reads the PUBLISH_* names (shared/publish/publisher-config.ts).
    PUBLISH_EVENT_BUS_NAME: lengths.busName(state.bus),
    PUBLISH_EVENT_SOURCE: config.eventSource,
    // With the archive on, every event goes to the bus (the archive keeps them all).
    PUBLISH_EVENT_BUS_MODE: config.eventArchive ? 'all' : config.eventBusMode,
    DEPLOYMENT_SECRET_ARN: lengths.secretArn(state.deploymentSecret),
    CONNECTION_TOKEN_KEY_ARN: lengths.keyArn(state.connectionTokenKey),
    // Each stream is due once per planner run unless told otherwise.
    POLL_INTERVAL: pollIntervalText(config),
    INITIAL_SYNC: config.initialSync,
    // Per-stream watermark ages (a custom metric each): see the streamMetrics prop.
    STREAM_METRICS: config.streamMetrics ? 'true' : 'false',
    // Subscribers in AWS must be public endpoints: no loopback, link-local or VPC ranges.
    WEBHOOK_ALLOW_PRIVATE: 'false',
    DELIVERY_TIMEOUT_MS: String(config.deliveryTimeoutMs),
    WEBHOOK_FAILING_AFTER: String(config.endpointFailingAfter),
    WEBHOOK_DISABLE_AFTER: config.endpointDisableAfter,
    POWERTOOLS_SERVICE_NAME: config.serviceName,
    POWERTOOLS_METRICS_NAMESPACE: config.metricsNamespace,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...Object.fromEntries(
      Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  };
}
