import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { buildWebhookDeps, WebhookLambdaEnvSchema } from '../../functions/webhook-deps.ts';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWaitingLedger } from '../../shared/webhooks/dynamodb-waiting-ledger.ts';
import { deliveryMessage } from '../../shared/webhooks/messages.ts';
import { buildOperationalEvent } from '../../shared/webhooks/operational-events.ts';

const VARIABLES = {
  STATE_TABLE_NAME: 'bridge',
  DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch',
  EVENT_BUS_NAME: 'bridge-bus',
};
const ENV = WebhookLambdaEnvSchema.parse(VARIABLES);

describe('dispatcher wiring (AWS)', () => {
  const sqs = mockClient(SQSClient);
  const events = mockClient(EventBridgeClient);
  afterAll(() => {
    sqs.restore();
    events.restore();
  });

  it('sends operational events to the dispatch queue (subscribers) and to the bus (rules)', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-1', MD5OfMessageBody: '' }], Failed: [] });
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const deps = buildWebhookDeps(ENV, new DynamoDBClient({ region: 'eu-west-1' }));
    const event = buildOperationalEvent('subscription.disabled', 'sub_1', {}, new ManualClock());
    await deps.sink.publish(event);
    const sent = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(sent.map((input) => input.QueueUrl)).toEqual([ENV.DISPATCH_QUEUE_URL]);
    expect(JSON.parse(sent[0]?.Entries?.[0]?.MessageBody ?? '{}')).toMatchObject({
      'detail-type': 'subscription.disabled',
      source: 'change-bridge',
      detail: { id: event.id },
    });
    const put = events.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);
    expect(put.map((entry) => [entry.EventBusName, entry.DetailType])).toEqual([
      ['bridge-bus', 'subscription.disabled'],
    ]);
  });

  it('shares which deliveries wait for a retry through the state table (a subject’s order across containers)', () => {
    const deps = buildWebhookDeps(ENV, new DynamoDBClient({ region: 'eu-west-1' }));
    expect(deps.waitingLedger).toBeInstanceOf(DynamoDbWaitingLedger);
  });

  it('sends delivery messages to the retry queue when the stack has one (FIFO dispatch queues)', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const retries = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch-retries';
    const env = WebhookLambdaEnvSchema.parse({
      ...VARIABLES,
      DISPATCH_QUEUE_URL: `${VARIABLES.DISPATCH_QUEUE_URL}.fifo`,
      DISPATCH_RETRY_QUEUE_URL: retries,
    });
    const deps = buildWebhookDeps(env, new DynamoDBClient({ region: 'eu-west-1' }));
    await deps.queue.send(deliveryMessage({ id: 'd-1', subscriptionId: 's-1' }, 'c-1'), 30);
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toMatchObject([{ QueueUrl: retries, DelaySeconds: 30 }]);
    // Without one (standard dispatch queues), an empty value included: the dispatch queue.
    expect(
      WebhookLambdaEnvSchema.parse({ ...VARIABLES, DISPATCH_RETRY_QUEUE_URL: '' })
        .DISPATCH_RETRY_QUEUE_URL,
    ).toBeUndefined();
  });

  it('sends a backfill’s delivery messages to the bulk dispatch queue beside standard dispatch queues, the others to the dispatch queue', async () => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-3' });
    const bulk = 'https://sqs.eu-west-1.amazonaws.com/123456789012/bulk-dispatch';
    const env = WebhookLambdaEnvSchema.parse({ ...VARIABLES, BULK_DISPATCH_QUEUE_URL: bulk });
    const deps = buildWebhookDeps(env, new DynamoDBClient({ region: 'eu-west-1' }));
    await deps.queue.send(deliveryMessage({ id: 'd-1', subscriptionId: 's-1' }, 'c-1', 'bulk'), 5);
    await deps.queue.send(deliveryMessage({ id: 'd-2', subscriptionId: 's-1' }, 'c-2', 'live'), 5);
    await deps.queue.send(deliveryMessage({ id: 'd-3', subscriptionId: 's-1' }, 'c-3'), 5);
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(
      sent.map((input) => [input.QueueUrl, JSON.parse(input.MessageBody ?? '{}').deliveryId]),
    ).toEqual([
      [bulk, 'd-1'],
      [VARIABLES.DISPATCH_QUEUE_URL, 'd-2'],
      [VARIABLES.DISPATCH_QUEUE_URL, 'd-3'],
    ]);
    // Beside FIFO dispatch queues every delivery message goes to the retry queue, a backfill's too.
    sqs.resetHistory();
    const retries = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch-retries';
    const fifo = buildWebhookDeps(
      WebhookLambdaEnvSchema.parse({
        ...VARIABLES,
        BULK_DISPATCH_QUEUE_URL: `${bulk}.fifo`,
        DISPATCH_RETRY_QUEUE_URL: retries,
      }),
      new DynamoDBClient({ region: 'eu-west-1' }),
    );
    await fifo.queue.send(deliveryMessage({ id: 'd-4', subscriptionId: 's-1' }, 'c-4', 'bulk'), 5);
    expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.QueueUrl)).toEqual([
      retries,
    ]);
  });

  it('refuses an EVENT_SOURCE that PutEvents would refuse for every operational event', () => {
    expect(() => WebhookLambdaEnvSchema.parse({ ...VARIABLES, EVENT_SOURCE: 'aws.hotel' })).toThrow(
      /must not start with aws\./,
    );
    expect(() =>
      WebhookLambdaEnvSchema.parse({ ...VARIABLES, EVENT_SOURCE: 's'.repeat(257) }),
    ).toThrow(/at most 256 characters/);
    expect(WebhookLambdaEnvSchema.parse({ ...VARIABLES, EVENT_SOURCE: 'acme' }).EVENT_SOURCE).toBe(
      'acme',
    );
  });

  it('takes the endpoint health thresholds from WEBHOOK_FAILING_AFTER and WEBHOOK_DISABLE_AFTER', () => {
    const client = new DynamoDBClient({ region: 'eu-west-1' });
    expect(buildWebhookDeps(ENV, client).config).toMatchObject({
      failingAfterFailures: 4,
      disableAfterMs: 5 * 86_400_000,
    });
    const env = WebhookLambdaEnvSchema.parse({
      ...VARIABLES,
      WEBHOOK_FAILING_AFTER: '10',
      WEBHOOK_DISABLE_AFTER: '12h',
    });
    expect(buildWebhookDeps(env, client).config).toMatchObject({
      failingAfterFailures: 10,
      disableAfterMs: 12 * 3_600_000,
    });
    expect(() =>
      WebhookLambdaEnvSchema.parse({ ...VARIABLES, WEBHOOK_DISABLE_AFTER: 'soon' }),
    ).toThrow(/not a duration/);
  });
});
