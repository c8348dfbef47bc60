import {
  EventBridgeClient,
  ListRulesCommand,
  PutEventsCommand,
  type PutEventsCommandInput,
  type Rule,
  type RuleState,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  BusRuleFilter,
  type BusRules,
  EventBridgeRuleSource,
  RULES_REFRESH_MS,
} from '../../shared/publish/bus-rules.ts';
import { EventBridgePublisher } from '../../shared/publish/event-bridge-publisher.ts';
import { MemoryPublishMetrics } from '../../shared/publish/publish-metrics.ts';
import { makeEvent } from './fixtures.ts';

const eventBridge = mockClient(EventBridgeClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => eventBridge.restore());
const RULE_ARN = 'arn:aws:events:eu-west-1:123456789012:rule/changes/';

function rule(name: string, pattern: unknown, state: RuleState = 'ENABLED'): Rule {
  return {
    Name: name,
    Arn: `${RULE_ARN}${name}`,
    EventBusName: 'changes',
    State: state,
    ...(pattern === undefined ? { ScheduleExpression: 'rate(5 minutes)' } : {}),
    ...(pattern === undefined ? {} : { EventPattern: JSON.stringify(pattern) }),
  };
}

function acceptPuts(): void {
  eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
    FailedEntryCount: 0,
    Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `eb-${index}` })),
  }));
}

function putTypes(): string[] {
  return eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => entry.DetailType ?? '');
}

const client = new EventBridgeClient({ region: 'eu-west-1' });

describe('EventBridgeRuleSource', () => {
  beforeEach(() => eventBridge.reset());
  afterEach(() => eventBridge.reset());

  it('lists every page of the bus rules, keeping enabled rules with a pattern', async () => {
    eventBridge
      .on(ListRulesCommand, { EventBusName: 'changes', Limit: 100 })
      .resolvesOnce({
        Rules: [rule('a', { source: ['x'] }), rule('off', {}, 'DISABLED')],
        NextToken: 't1',
      })
      .resolvesOnce({
        Rules: [rule('cron', undefined), rule('b', { 'detail-type': [{ cidr: '10.0.0.0/8' }] })],
      });
    const rules = await new EventBridgeRuleSource(client, 'changes').list();
    expect(rules).toEqual({
      patterns: [{ source: ['x'] }, undefined],
      account: '123456789012',
      region: 'eu-west-1',
    });
    expect(eventBridge.commandCalls(ListRulesCommand)[1]?.args[0].input.NextToken).toBe('t1');
  });
});

describe('EventBridgePublisher with a rule filter', () => {
  let clock: ManualClock;
  let listed: BusRules;
  let listings: number;
  let publisher: EventBridgePublisher;
  let errors: unknown[];
  let metrics: MemoryPublishMetrics;

  beforeEach(() => {
    eventBridge.reset();
    acceptPuts();
    clock = new ManualClock();
    listings = 0;
    errors = [];
    metrics = new MemoryPublishMetrics();
    listed = { patterns: [], account: '123456789012', region: 'eu-west-1' };
    const filter = new BusRuleFilter({
      source: {
        list: async () => {
          listings += 1;
          if (listed.patterns.length === 1 && listed.patterns[0] === null)
            throw new Error('denied');
          return listed;
        },
      },
      clock,
      onError: (error) => errors.push(error),
    });
    publisher = new EventBridgePublisher({
      client,
      eventBusName: 'changes',
      clock,
      metrics,
      ruleFilter: filter,
    });
  });

  afterEach(() => eventBridge.reset());

  const events = [
    makeEvent(1, { change: 'updated' }),
    makeEvent(2, { change: 'created', enterpriseId: 'ent2' }),
    makeEvent(3, { entityType: 'resource', change: 'deleted' }),
  ];

  it('sends nothing when no rule is on the bus, and still counts every event published', async () => {
    const result = await publisher.publish(events);
    expect(result).toEqual({ published: 3, thinned: 0, failures: [] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('puts only the events some rule matches, on the envelope EventBridge would build', async () => {
    listed.patterns = [
      { source: ['change-bridge'], 'detail-type': ['customer.created'] },
      { account: ['123456789012'], detail: { data: { entityType: ['resource'] } } },
      { resources: [{ prefix: 'change-bridge:enterprise/ent9' }] },
    ];
    await publisher.publish(events);
    expect(putTypes()).toEqual(['customer.created', 'resource.deleted']);
    expect(metrics.unmatchedCount()).toBe(1);
    expect(metrics.publishedCount('eventbridge')).toBe(2);
  });

  it('puts every event while a rule has a pattern it cannot read', async () => {
    listed.patterns = [{ source: ['elsewhere'] }, undefined];
    await publisher.publish(events);
    expect(putTypes()).toHaveLength(3);
  });

  it('lists the rules once per refresh interval, so a new rule is seen after the next refresh', async () => {
    await publisher.publish(events);
    listed.patterns = [{ 'detail-type': [{ prefix: 'customer.' }] }];
    await clock.advance(RULES_REFRESH_MS - 1);
    await publisher.publish(events);
    expect(putTypes()).toEqual([]);
    await clock.advance(1);
    await publisher.publish(events);
    expect(putTypes()).toEqual(['customer.updated', 'customer.created']);
    expect(listings).toBe(2);
  });

  it('puts every event until the next refresh when the rules cannot be listed', async () => {
    listed.patterns = [null as never];
    await publisher.publish(events);
    expect(putTypes()).toHaveLength(3);
    expect(errors).toHaveLength(1);
  });

  it('shares one listing between concurrent publishes', async () => {
    await Promise.all([publisher.publish(events), publisher.publish(events)]);
    expect(listings).toBe(1);
  });
});
