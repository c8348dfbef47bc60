import { readFileSync } from 'node:fs';
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { scopeOf } from '../../shared/changes/entity-types.ts';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { ManualClock } from '../../shared/clock.ts';
import { BusRuleFilter, type BusRules } from '../../shared/publish/bus-rules.ts';
import { EventBridgePublisher } from '../../shared/publish/event-bridge-publisher.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { parseEventPattern } from '../../shared/publish/routing-rule.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

const eventBridge = mockClient(EventBridgeClient);
afterAll(() => eventBridge.restore());

/** The README's `aws events put-rule --event-pattern '…'` example, as JSON. */
function cliPattern(): unknown {
  const match = /--event-pattern '([^']+)'/.exec(README);
  if (!match?.[1]) throw new Error('README has no put-rule --event-pattern example');
  return JSON.parse(match[1]);
}

/**
 * The README's CDK `eventPattern: { … }` example as the JSON pattern CDK renders it
 * (`detailType` becomes `detail-type`): the object literal turned into JSON text.
 */
function cdkPattern(): unknown {
  const match = /eventPattern: (\{[\s\S]*?\n {2}\}),\n {2}targets:/.exec(README);
  if (!match?.[1]) throw new Error('README has no CDK eventPattern example');
  const json = match[1]
    .replace(/\/\/.*$/gm, '')
    .replaceAll("'", '"')
    .replace(/([A-Za-z]+):/g, '"$1":')
    .replace(/,(\s*[}\]])/g, '$1')
    .replace('"detailType"', '"detail-type"');
  return JSON.parse(json);
}

/**
 * The subset of EventBridge matching these examples use, written apart from the bridge's own
 * matcher: a list matches a value equal to one of its items (or, for an array value, holding
 * one), an object matches an object whose fields match; a missing field matches nothing.
 */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    const values = Array.isArray(value) ? value : [value];
    return values.some((item) => pattern.includes(item));
  }
  if (typeof pattern !== 'object' || pattern === null) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return Object.entries(pattern).every(([field, inner]) => matches(inner, record[field]));
}

/** The envelope EventBridge matches rules against, for a PutEvents entry. */
function busEnvelope(entry: PutEventsRequestEntry) {
  return {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '123456789012',
    time: entry.Time?.toISOString(),
    region: 'eu-west-1',
    resources: entry.Resources ?? [],
    detail: JSON.parse(entry.Detail ?? 'null'),
  };
}

const CHAIN = '3bd5f1a0-9d1f-4f6b-a1f4-5c1e2b7d9a10';
const ENTERPRISE = '8f0c2d4e-6b1a-4c3d-9e5f-7a2b1c0d4e6f';

/** The README's placeholders, filled with the tenant of the events below. */
function filled(pattern: unknown): unknown {
  return JSON.parse(
    JSON.stringify(pattern)
      .replaceAll('<chain uuid>', CHAIN)
      .replaceAll('<enterprise uuid>', ENTERPRISE),
  );
}

/**
 * A customer.updated event as the poller builds it in AWS: a customer record names its chain
 * only (ChainId), and AWS streams carry no scope of their own.
 */
function customerUpdated(change: { Email?: string; Notes?: string; ChainId?: string } = {}) {
  const previous = {
    Id: 'c-1',
    ChainId: change.ChainId ?? CHAIN,
    LastName: 'Doe',
    Email: 'old@example.com',
    Notes: 'vip',
    UpdatedUtc: '2026-11-21T09:10:00Z',
  };
  const current = { ...previous, ...change, UpdatedUtc: '2026-11-21T09:10:41Z' };
  return buildChangeEvent({
    connectionId: 'main',
    entityType: 'customer',
    entityId: 'c-1',
    scope: scopeOf('customer', current, {}),
    detectedAt: Date.UTC(2026, 10, 21, 9, 10, 43),
    change: 'updated',
    current,
    previous,
  }) as PublishableEvent;
}

describe("the README's EventBridge rule examples against the entries the publisher puts", () => {
  let publisher: EventBridgePublisher;

  beforeEach(() => {
    eventBridge.reset();
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 0,
      Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `eb-${index}` })),
    }));
    publisher = new EventBridgePublisher({
      client: new EventBridgeClient({ region: 'eu-west-1' }),
      eventBusName: 'change-bridge-prod',
      clock: new ManualClock(),
    });
  });

  async function putEnvelopes(events: readonly PublishableEvent[]) {
    await publisher.publish(events);
    return eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? [])
      .map(busEnvelope);
  }

  it('puts source change-bridge, detail-type the type, detail the event and the resources README names', async () => {
    const event = customerUpdated({ Email: 'new@example.com' });
    const [envelope] = await putEnvelopes([event]);

    expect(envelope).toMatchObject({
      source: 'change-bridge',
      'detail-type': 'customer.updated',
      detail: event,
      resources: [`change-bridge:chain/${CHAIN}`, 'change-bridge:entity/customer/c-1'],
    });
  });

  it('matches the put-rule example against every customer.updated, and nothing else', async () => {
    const [updated, created] = await putEnvelopes([
      customerUpdated({ Email: 'new@example.com' }),
      { ...customerUpdated(), type: 'customer.created' },
    ]);

    expect(matches(cliPattern(), updated)).toBe(true);
    expect(matches(cliPattern(), created)).toBe(false);
  });

  it('matches the CDK example against a customer of the chain whose e-mail changed, thin or full', async () => {
    const emailChanged = customerUpdated({ Email: 'new@example.com' });
    const huge = customerUpdated({ Email: 'new@example.com', Notes: 'n'.repeat(150_000) });
    const envelopes = await putEnvelopes([
      emailChanged,
      huge,
      customerUpdated({ Notes: 'gold' }),
      customerUpdated({ Email: 'new@example.com', ChainId: 'another-chain' }),
    ]);
    const [full, thin, notesOnly, otherChain] = envelopes;
    const pattern = filled(cdkPattern());

    expect(thin?.detail.data.truncated).toBe(true);
    expect(matches(pattern, full)).toBe(true);
    expect(matches(pattern, thin)).toBe(true);
    expect(matches(pattern, notesOnly)).toBe(false);
    expect(matches(pattern, otherChain)).toBe(false);
  });

  it('puts, in matched mode, exactly the events the CDK example matches when it is the bus’s one rule', async () => {
    const pattern = filled(cdkPattern());
    const rules: BusRules = {
      patterns: [parseEventPattern(JSON.stringify(pattern))],
      account: '123456789012',
      region: 'eu-west-1',
    };
    const events = [
      customerUpdated({ Email: 'new@example.com' }),
      customerUpdated({ Notes: 'gold' }),
      customerUpdated({ Email: 'new@example.com', Notes: 'n'.repeat(150_000) }),
      customerUpdated({ Email: 'new@example.com', ChainId: 'another-chain' }),
    ];
    const wanted = (await putEnvelopes(events))
      .filter((envelope) => matches(pattern, envelope))
      .map((envelope) => envelope.detail.id);
    eventBridge.resetHistory();
    const matched = new EventBridgePublisher({
      client: new EventBridgeClient({ region: 'eu-west-1' }),
      eventBusName: 'change-bridge-prod',
      clock: new ManualClock(),
      ruleFilter: new BusRuleFilter({ source: { list: async () => rules } }),
    });

    const result = await matched.publish(events);

    const put = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? [])
      .map((entry) => JSON.parse(entry.Detail ?? '').id);
    expect(wanted).toEqual([events[0]!.id, events[2]!.id]);
    expect(put).toEqual(wanted);
    expect(result.published).toBe(4);
  });
});
