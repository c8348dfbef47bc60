import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import { pollDueStreams } from '../../shared/polling/poll-due-streams.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { SAMPLE_ACCOUNTING_CATEGORY, SAMPLE_CUSTOMER } from '../connector/fixtures.ts';
import { jsonValue } from '../properties/json-arbitraries.ts';
import { type CannedResponse, type JsonServer, startJsonServer } from '../support/json-server.ts';

const START_MS = Date.UTC(2026, 2, 10, 9, 0, 0);
/** Fields every customer must carry with a given type (connector-api.md, Customer). */
const REQUIRED_CUSTOMER_FIELDS = ['Id', 'ChainId', 'Number', 'LastName', 'CreatedUtc'] as const;

const customers = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    ...SAMPLE_CUSTOMER,
    Id: `c0ffee00-0000-4000-8000-00000000000${index}`,
  }));

/** A page of three customers broken in one of the ways a faulty service breaks pages. */
const brokenPage: fc.Arbitrary<{ text: string; recordIndex?: number; field?: string }> = fc.oneof(
  fc.tuple(fc.nat(2), fc.constantFrom(...REQUIRED_CUSTOMER_FIELDS)).map(([recordIndex, field]) => {
    const page = customers(3) as Record<string, unknown>[];
    delete page[recordIndex]![field];
    return { text: JSON.stringify({ Customers: page, Cursor: null }), recordIndex, field };
  }),
  fc
    .tuple(
      fc.nat(2),
      fc.constantFrom('Email', 'CreatedUtc', 'IsActive', 'Classifications', 'LastName'),
      fc.oneof(fc.integer(), fc.constant({ nested: true }), fc.constant([1, 2]), fc.boolean()),
    )
    .map(([recordIndex, field, wrong]) => {
      const page = customers(3) as Record<string, unknown>[];
      page[recordIndex]![field] = field === 'IsActive' ? 'yes' : wrong;
      return { text: JSON.stringify({ Customers: page, Cursor: null }), recordIndex, field };
    }),
  fc.integer({ min: 100_000, max: 3_000_000 }).map((size) => {
    const page = customers(3) as Record<string, unknown>[];
    page[1]!.Notes = 'n'.repeat(size);
    return { text: JSON.stringify({ Customers: page, Cursor: null }) };
  }),
  fc.integer({ min: 1, max: 400 }).map((cut) => ({
    text: JSON.stringify({ Customers: customers(3), Cursor: null }).slice(0, cut),
  })),
  jsonValue.map((value) => ({ text: JSON.stringify({ Customers: value, Cursor: null }) })),
);

describe('connector pages fuzz', () => {
  let server: JsonServer;
  let customerAnswer: CannedResponse = {};

  beforeAll(async () => {
    server = await startJsonServer((request) =>
      request.path.endsWith('customers/getAll')
        ? customerAnswer
        : { body: { AccountingCategories: [SAMPLE_ACCOUNTING_CATEGORY], Cursor: null } },
    );
  });
  afterAll(() => server.close());

  const connection = () => ({
    baseUrl: server.url,
    clientToken: 'fuzz-client',
    accessToken: 'fuzz-access',
    client: 'fuzz',
    rateLimit: false as const,
  });

  it('turns any broken page into a response error naming the field and the record, never another failure', async () => {
    const client = createConnectorClient(connection(), { clock: new ManualClock(START_MS) });
    try {
      await fc.assert(
        fc.asyncProperty(brokenPage, async (page) => {
          customerAnswer = { rawBody: page.text };
          const outcome = await client.customers
            .getAll({
              Limitation: { Count: 10 },
              Extent: { Customers: true },
              UpdatedUtc: { StartUtc: '2026-03-01T00:00:00Z', EndUtc: '2026-03-02T00:00:00Z' },
            })
            .then(
              () => undefined,
              (error: unknown) => error,
            );
          if (outcome === undefined) return; // a mutation the contract allows (e.g. Customers: [])
          expect(outcome).toBeInstanceOf(ConnectorError);
          const error = outcome as ConnectorError;
          expect(error.category).toBe('response');
          if (page.recordIndex !== undefined) {
            expect(error.message).toContain(`Customers[${page.recordIndex}].${page.field}`);
            // A record that lost its Id is named by its place in the page alone.
            if (page.field !== 'Id')
              expect(error.message).toContain(customers(3)[page.recordIndex]!.Id);
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      await client.close();
    }
  });

  it('keeps polling every stream when a record breaks its schema, publishing the valid records of its page and naming the record set aside', async () => {
    const clock = new ManualClock(START_MS);
    const client = createConnectorClient(connection(), { clock });
    const published: unknown[] = [];
    const publisher: EventPublisher = {
      async publish(events) {
        published.push(...events);
        return { published: events.length, thinned: 0, failures: [] };
      },
    };
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,accountingCategory', INITIAL_SYNC: 'emit' },
      START_MS,
    );
    const deps = {
      store: new MemoryStateStore(),
      client,
      publisher,
      clock,
      windows: { ...settings.windows, historyStartMs: START_MS - 86_400_000 },
      pageCount: 100,
    };
    const broken = customers(2) as Record<string, unknown>[];
    broken[1]!.Email = 42;
    customerAnswer = { body: { Customers: broken, Cursor: null } };
    try {
      const outcomes = await pollDueStreams(streamDefinitions('fuzz', settings), deps, 'fuzz');
      const categories = outcomes.find((outcome) =>
        outcome.streamId.endsWith('accountingCategory'),
      );
      const customer = outcomes.find((outcome) => outcome.streamId.endsWith('customer'));
      expect(categories, JSON.stringify(outcomes)).toMatchObject({ kind: 'polled' });
      // The broken record is set aside, not its page: the stream polls and publishes the other.
      expect(customer).toMatchObject({ kind: 'polled', setAside: { records: 1 } });
      expect(published.map((event) => (event as { subject: string }).subject).sort()).toEqual(
        [SAMPLE_ACCOUNTING_CATEGORY.Id, String(broken[0]!.Id)].sort(),
      );
      const state = await deps.store.getStream(customer!.streamId);
      expect(state).toMatchObject({ lastError: null, recordsSetAside: 1 });
      for (const message of [
        (customer as { setAside: { error: string } }).setAside.error,
        state?.lastSetAside?.error,
      ]) {
        expect(message).toContain('Customers[1].Email');
        expect(message).toContain(String(broken[1]!.Id));
      }
    } finally {
      await client.close();
    }
  });

  it('polls the stream of any broken page to its end or fails it with a response error, never more: a broken record is set aside and its page-mates published', async () => {
    const clock = new ManualClock(START_MS);
    const client = createConnectorClient(connection(), { clock });
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,accountingCategory', INITIAL_SYNC: 'emit' },
      START_MS,
    );
    const definitions = streamDefinitions('fuzz', settings);
    try {
      await fc.assert(
        fc.asyncProperty(brokenPage, async (page) => {
          customerAnswer = { rawBody: page.text };
          const subjects: string[] = [];
          const publisher: EventPublisher = {
            async publish(events) {
              for (const event of events) subjects.push((event as { subject: string }).subject);
              return { published: events.length, thinned: 0, failures: [] };
            },
          };
          const deps = {
            store: new MemoryStateStore(),
            client,
            publisher,
            clock,
            windows: { ...settings.windows, historyStartMs: START_MS - 86_400_000 },
            pageCount: 100,
          };
          const outcomes = await pollDueStreams(definitions, deps, 'fuzz');
          const byEntity = (entity: string) =>
            outcomes.find((outcome) => outcome.streamId.endsWith(`:${entity}`));
          expect(byEntity('accountingCategory')).toMatchObject({ kind: 'polled' });
          const customer = byEntity('customer')!;
          if (customer.kind === 'failed') {
            // Only a page broken beyond its records fails: its error says what broke.
            expect(page.recordIndex).toBeUndefined();
            expect(customer.error).toMatch(/^customers\/getAll: /);
            return;
          }
          expect(customer.kind).toBe('polled');
          if (page.recordIndex === undefined) return;
          expect(customer).toMatchObject({ setAside: { records: 1 } });
          const error = customer.kind === 'polled' ? customer.setAside?.error : undefined;
          expect(error).toContain(`Customers[${page.recordIndex}].${page.field}`);
          const ids = customers(3).map((c) => c.Id);
          if (page.field !== 'Id') expect(error).toContain(ids[page.recordIndex]);
          const state = await deps.store.getStream(customer.streamId);
          expect(state?.lastSetAside?.error).toBe(error);
          expect(subjects.filter((subject) => ids.includes(subject)).sort()).toEqual(
            ids.filter((_, index) => index !== page.recordIndex).sort(),
          );
        }),
        { numRuns: 60 },
      );
    } finally {
      await client.close();
    }
  });
});
