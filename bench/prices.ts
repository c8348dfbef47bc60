// Shared by the cost benches (cost.ts, scale-model.ts): one price table, one set of sizes.
/** List prices, us-east-1 (checked against these pages; re-check before relying on them). */
export const PRICES = {
  /** aws.amazon.com/eventbridge/pricing: custom events, per million 64 KB chunks. */
  putEventsPerMillion: 1.0,
  /** aws.amazon.com/eventbridge/pricing: archive, per GB processed. */
  archivePerGb: 0.1,
  /** aws.amazon.com/sqs/pricing: standard queue, per million requests (64 KB chunks). */
  sqsPerMillionRequests: 0.4,
  /** aws.amazon.com/lambda/pricing: Arm, per GB-second (first tier). */
  lambdaArmPerGbSecond: 0.0000133334,
  /** aws.amazon.com/lambda/pricing: per million requests. */
  lambdaPerMillionRequests: 0.2,
  /** aws.amazon.com/dynamodb/pricing/on-demand: per million write request units. */
  dynamoPerMillionWru: 0.625,
  /** aws.amazon.com/dynamodb/pricing/on-demand: per million read request units. */
  dynamoPerMillionRru: 0.125,
  /** aws.amazon.com/cloudwatch/pricing: Logs ingestion (Standard), per GB. */
  logsPerGb: 0.5,
  /** aws.amazon.com/ec2/pricing/on-demand: data transfer out to the internet, per GB (first 10 TB). */
  transferOutPerGb: 0.09,
  /** aws.amazon.com/kms/pricing: symmetric requests (Decrypt), per 10,000. */
  kmsPer10kRequests: 0.03,
};
/** Memory of the functions (infra/runtime.ts): poller 1,024 MB, dispatcher 512 MB, planner 256 MB. */
export const POLLER_GB = 1;
export const DISPATCHER_GB = 0.5;
export const PLANNER_GB = 0.25;
/** The dispatch event source mapping's batch size (infra/runtime.ts). */
export const DISPATCH_BATCH_SIZE = 16;
/** Most messages one SQS ReceiveMessage returns (Lambda's poller fills a batch of 16 with two). */
export const SQS_RECEIVE_MAX = 10;
/** START, END and REPORT lines Lambda writes per invocation (about 90 + 60 + 270 bytes). */
export const LAMBDA_PLATFORM_LOG_BYTES = 420;
/** The poller's `poll finished` log line and its EMF metrics document per poll (estimate). */
export const POLLER_LOG_BYTES_PER_POLL = 900;
/** Monthly prices of what one deployment keeps whatever it polls (list prices, us-east-1). */
export const MONTHLY_PRICES = {
  /** aws.amazon.com/kms/pricing: one customer-managed key. */
  kmsKey: 1.0,
  /** aws.amazon.com/secrets-manager/pricing: one secret (one per connection). */
  secret: 0.4,
  /** aws.amazon.com/cloudwatch/pricing: one custom metric (first 10,000). */
  customMetric: 0.3,
};
/**
 * Custom metrics besides one `WatermarkAgeSeconds` per stream (deliveries succeeded, failed, poll
 * failures; parked streams, connector requests, connector 429s, connector budget used, the
 * oldest watermark age).
 */
export const FIXED_CUSTOM_METRICS = 8;
