/**
 * The webhook dispatcher: subscriptions, signing, SSRF policy, delivery, retry policy,
 * the SQS batch core and the admin service. Import from here in composition roots.
 */

export {
  createHostResolver,
  type HostResolverOptions,
  type StoppableHostResolver,
} from '../dns/host-resolver.ts';
export { type HostResolver, systemResolver } from '../dns/system-resolver.ts';
export { attemptDelivery } from './attempt.ts';
export type {
  DeliveryWithAttempts,
  EventSummary,
  SnapshotRecord,
  SnapshotSource,
} from './delivery-admin.ts';
export { type DeliveryOutcome, decideOutcome } from './delivery-outcome.ts';
export type { DispatchRecord } from './dispatch-record.ts';
export { fanOutEvent, processDispatchBatch } from './dispatcher.ts';
export {
  consoleDispatchLogger,
  createDispatcherDeps,
  DEFAULT_DISPATCHER_CONFIG,
  type DispatcherConfig,
  type DispatcherDeps,
  type DispatchLogger,
} from './dispatcher-deps.ts';
export { DynamoDbWebhookStore } from './dynamodb-store.ts';
export { WEBHOOK_RETENTION_MS } from './dynamodb-webhook-keys.ts';
export {
  DELIVERY_TIMEOUT_MS,
  type HttpAttemptResult,
  type StoppedRequest,
  UndiciWebhookSender,
  type WebhookSender,
} from './http-sender.ts';
export { MemoryWebhookStore } from './memory-store.ts';
export { CountingMetrics, type DispatchMetrics } from './metrics.ts';
export {
  buildOperationalEvent,
  EventBridgeOperationalEventSink,
  MemoryOperationalEventSink,
  type OperationalEvent,
  type OperationalEventSink,
} from './operational-events.ts';
export {
  type DeliveryQueue,
  MemoryDeliveryQueue,
  type QueuedDelivery,
  SqsDeliveryQueue,
} from './queue.ts';
export { DEFAULT_RETRY_SCHEDULE_MS, nextRetryDelay } from './retry-policy.ts';
export { createWebhookService, type WebhookService } from './service.ts';
export { generateSecret, signatureHeader, systemRandomBytes, webhookHeaders } from './signing.ts';
export type {
  Attempt,
  CreateDeliveryOptions,
  Delivery,
  DeliveryRecord,
  EndpointState,
  PutEventOptions,
  StoredEvent,
  WebhookStore,
} from './store.ts';
export type { Subscription, SubscriptionView } from './subscription.ts';
export {
  SECRET_ROTATION_GRACE_MS,
  type WebhookAdminDeps,
  WebhookNotFoundError,
  WebhookUrlUndecidedError,
} from './subscription-admin.ts';
export { checkWebhookUrl, type UrlPolicy } from './url-policy.ts';
