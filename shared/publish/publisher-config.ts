import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { Clock, RandomSource } from '../clock.ts';
import { parseEnvironment } from '../env-issues.ts';
import { BridgeError } from '../errors.ts';
import { optionalVariable } from '../optional-variable.ts';
import type { BulkLaneLedger } from './bulk-lane.ts';
import { BusRuleFilter, EventBridgeRuleSource } from './bus-rules.ts';
import { createDispatchQueuePublisher } from './dispatch-queue.ts';
import { DEFAULT_EVENT_SOURCE, EventSourceSchema } from './event-bridge-entry.ts';
import { EventBridgePublisher } from './event-bridge-publisher.ts';
import { LaneRoutingPublisher } from './lane-routing-publisher.ts';
import { MultiPublisher } from './multi-publisher.ts';
import type { PublishMetrics } from './publish-metrics.ts';
import type { EventPublisher } from './publisher.ts';
import type { RetryOptions } from './retry-backoff.ts';
import { SqsPublisher } from './sqs-publisher.ts';

/**
 * The publishing variables: `PUBLISH_TARGETS` (`eventbridge` | `sqs` | `both`, default
 * `eventbridge`), `PUBLISH_EVENT_BUS_NAME` (default `default`), `PUBLISH_EVENT_BUS_MODE`
 * (`matched`: only events some rule on the bus matches, the default; `all`: every event),
 * `PUBLISH_EVENT_SOURCE` (default `change-bridge`; see EventSourceSchema), `PUBLISH_QUEUE_URL` (required with
 * `sqs` and `both`), `PUBLISH_QUEUE_FIFO` (`true` | `false`; default: the URL ends in
 * `.fifo`), `DISPATCH_QUEUE_URL` (the webhook dispatcher's queue, fed directly with
 * every event whatever the targets; absent: no webhooks from this publisher) and
 * `BULK_DISPATCH_QUEUE_URL` (the dispatcher's queue for bulk work's events; absent: they share
 * the dispatch queue; see LaneRoutingPublisher).
 */
export const PublisherEnvSchema = z
  .object({
    PUBLISH_TARGETS: optionalVariable(z.enum(['eventbridge', 'sqs', 'both'])),
    PUBLISH_EVENT_BUS_NAME: optionalVariable(z.string().min(1)),
    PUBLISH_EVENT_BUS_MODE: optionalVariable(z.enum(['matched', 'all'])),
    PUBLISH_EVENT_SOURCE: optionalVariable(EventSourceSchema),
    // Not z.url(): local emulators hand out queue URLs that WHATWG rejects.
    DISPATCH_QUEUE_URL: optionalVariable(z.string().min(1)),
    BULK_DISPATCH_QUEUE_URL: optionalVariable(z.string().min(1)),
    PUBLISH_QUEUE_URL: optionalVariable(z.url()),
    PUBLISH_QUEUE_FIFO: optionalVariable(z.enum(['true', 'false'])),
  })
  .superRefine((env, context) => {
    const targets = env.PUBLISH_TARGETS ?? 'eventbridge';
    if (targets !== 'eventbridge' && env.PUBLISH_QUEUE_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['PUBLISH_QUEUE_URL'],
        message: `is required when PUBLISH_TARGETS is ${targets}`,
      });
    }
  })
  .transform((env) => {
    const targets = env.PUBLISH_TARGETS ?? 'eventbridge';
    const source = env.PUBLISH_EVENT_SOURCE ?? DEFAULT_EVENT_SOURCE;
    return {
      dispatch:
        env.DISPATCH_QUEUE_URL === undefined
          ? undefined
          : {
              queueUrl: env.DISPATCH_QUEUE_URL,
              source,
              ...(env.BULK_DISPATCH_QUEUE_URL === undefined
                ? {}
                : { bulkQueueUrl: env.BULK_DISPATCH_QUEUE_URL }),
            },
      eventBridge:
        targets === 'sqs'
          ? undefined
          : {
              eventBusName: env.PUBLISH_EVENT_BUS_NAME ?? 'default',
              source,
              mode: env.PUBLISH_EVENT_BUS_MODE ?? 'matched',
            },
      sqs:
        targets === 'eventbridge' || env.PUBLISH_QUEUE_URL === undefined
          ? undefined
          : {
              queueUrl: env.PUBLISH_QUEUE_URL,
              fifo:
                env.PUBLISH_QUEUE_FIFO === undefined
                  ? env.PUBLISH_QUEUE_URL.endsWith('.fifo')
                  : env.PUBLISH_QUEUE_FIFO === 'true',
            },
    };
  });

/** Which targets to publish to and how; a target is absent when not chosen. */
export type PublisherConfig = z.output<typeof PublisherEnvSchema>;

/**
 * Reads the publishing configuration from environment variables (composition roots pass
 * `process.env`). Throws a ValidationError naming the variable at fault, not showing its value.
 * @example parsePublisherConfig({ PUBLISH_TARGETS: 'both', PUBLISH_QUEUE_URL: url })
 */
export function parsePublisherConfig(
  env: Readonly<Record<string, string | undefined>>,
): PublisherConfig {
  return parseEnvironment(PublisherEnvSchema, env);
}

/** What {@link createPublisher} builds the adapters from. */
export interface PublisherDependencies {
  eventBridgeClient?: EventBridgeClient;
  sqsClient?: SQSClient;
  clock?: Clock;
  random?: RandomSource;
  metrics?: PublishMetrics;
  retry?: Partial<RetryOptions>;
  /** Told when the bus's rules cannot be listed (every event then goes to the bus). */
  onRulesError?: (error: unknown) => void;
  /** The per-stream counts of the bulk dispatch lane; required with a bulk dispatch queue. */
  bulkLaneLedger?: BulkLaneLedger;
}

/**
 * The publisher the configuration asks for: the dispatch queue (when configured; with a bulk
 * dispatch queue, a {@link LaneRoutingPublisher} over both), the bus
 * (in `matched` mode behind a {@link BusRuleFilter} on its rules) and the SQS events queue,
 * one adapter or a {@link MultiPublisher} over several. Throws a BridgeError when a
 * chosen target's client is missing.
 */
export function createPublisher(
  config: PublisherConfig,
  deps: PublisherDependencies,
): EventPublisher {
  const shared = {
    clock: deps.clock,
    random: deps.random,
    metrics: deps.metrics,
    retry: deps.retry,
  };
  const targets: EventPublisher[] = [];
  if (config.dispatch) {
    const client = deps.sqsClient;
    if (!client)
      throw new BridgeError('the dispatch queue is a publish target but no SQS client was given');
    const { bulkQueueUrl, ...dispatch } = config.dispatch;
    const live = createDispatchQueuePublisher({ client, ...dispatch, ...shared });
    if (bulkQueueUrl === undefined) targets.push(live);
    else {
      if (!deps.bulkLaneLedger)
        throw new BridgeError(
          'a bulk dispatch queue is configured but no bulk lane ledger was given',
        );
      const bulk = createDispatchQueuePublisher({
        client,
        ...dispatch,
        queueUrl: bulkQueueUrl,
        ...shared,
      });
      targets.push(new LaneRoutingPublisher({ live, bulk, ledger: deps.bulkLaneLedger }));
    }
  }
  if (config.eventBridge) {
    const client = deps.eventBridgeClient;
    if (!client)
      throw new BridgeError('EventBridge is a publish target but no EventBridge client was given');
    const { mode, ...entryOptions } = config.eventBridge;
    const ruleFilter =
      mode === 'matched'
        ? new BusRuleFilter({
            source: new EventBridgeRuleSource(client, entryOptions.eventBusName),
            clock: deps.clock,
            onError: deps.onRulesError,
          })
        : undefined;
    targets.push(new EventBridgePublisher({ client, ...entryOptions, ruleFilter, ...shared }));
  }
  if (config.sqs) {
    if (!deps.sqsClient)
      throw new BridgeError('SQS is a publish target but no SQS client was given');
    targets.push(new SqsPublisher({ client: deps.sqsClient, ...config.sqs, ...shared }));
  }
  const [only] = targets;
  return targets.length === 1 && only ? only : new MultiPublisher(targets);
}
