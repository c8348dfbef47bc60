import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import { driveClock } from '../support/drive-clock.ts';
import { type CannedResponse, type JsonServer, startJsonServer } from '../support/json-server.ts';

const CONFIG = { clientToken: 'ct', accessToken: 'at', client: 'tests' };
const CUSTOMERS_BODY = {
  Limitation: { Count: 1000 },
  Extent: { Customers: true },
  CustomerIds: ['6f8b1c84-61b5-4b52-9c29-6a4d3c0e1f11'],
};
const UUIDS = Array.from(
  { length: 3000 },
  (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
);

let server: JsonServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function customer(id: string) {
  return {
    Id: id,
    ChainId: UUIDS[0],
    Number: '1',
    LastName: 'Nováková',
    CreatedUtc: '2026-01-01T00:00:00Z',
    UpdatedUtc: '2026-01-01T00:00:00Z',
    Classifications: [],
    Options: [],
    IsActive: true,
    PreferredSpaceFeatures: [],
    CreatorProfileId: UUIDS[1],
    UpdaterProfileId: UUIDS[1],
  };
}

describe('429 Too many requests', () => {
  it('waits for Retry-After: 2 before the next request (injected clock)', async () => {
    const clock = new ManualClock();
    const seenAt: number[] = [];
    server = await startJsonServer(() => {
      seenAt.push(clock.now());
      return seenAt.length === 1
        ? { status: 429, headers: { 'retry-after': '2' }, body: { Message: 'slow down' } }
        : { body: { TaxEnvironments: [] } };
    });
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url },
      { clock, random: () => 0.5 },
    );
    await driveClock(clock, client.call('taxEnvironments/getAll', {}));
    await client.close();
    expect(seenAt).toHaveLength(2);
    expect(seenAt[1]! - seenAt[0]!).toBeGreaterThanOrEqual(2000);
  });

  it('holds the token for the Retry-After of the 429 it gives up on', async () => {
    const clock = new ManualClock();
    const seenAt: number[] = [];
    server = await startJsonServer(() => {
      seenAt.push(clock.now());
      return seenAt.length === 1
        ? { status: 429, headers: { 'retry-after': '3' }, body: { Message: 'slow down' } }
        : { body: { TaxEnvironments: [] } };
    });
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url },
      {
        clock,
        random: () => 0.5,
        retryLimits: { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      },
    );
    const error = await client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ category: 'rate-limit' });
    // The next call of the same token waits for the server's pause all the same.
    await driveClock(clock, client.call('taxEnvironments/getAll', {}));
    await client.close();
    expect(seenAt[1]! - seenAt[0]!).toBeGreaterThanOrEqual(3000);
  });

  it('gives up on a 429 only once the token’s shared ledger holds its pause (a Lambda ends then)', async () => {
    server = await startJsonServer(() => ({ status: 429, headers: { 'retry-after': '3' } }));
    const memory = new MemoryGrantLedger();
    let written: (() => void) | undefined;
    const slowLedger = {
      take: memory.take.bind(memory),
      recent: memory.recent.bind(memory),
      release: memory.release.bind(memory),
      restamp: memory.restamp.bind(memory),
      pause: async (key: string, untilMs: number) => {
        await new Promise<void>((resolve) => {
          written = resolve;
        });
        await memory.pause(key, untilMs);
      },
    };
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url },
      {
        clock: new ManualClock(),
        budgetLedger: slowLedger,
        retryLimits: { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      },
    );
    let settled = false;
    const call = client.call('taxEnvironments/getAll', {}).catch((e: unknown) => {
      settled = true;
      return e;
    });
    while (!written) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    written();
    expect(await call).toMatchObject({ category: 'rate-limit' });
    await client.close();
  });

  it("accepts Retry-After as an HTTP date, measured on the server's clock (its Date header)", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const seenAt: number[] = [];
    server = await startJsonServer(() => {
      seenAt.push(clock.now());
      return seenAt.length === 1
        ? {
            status: 429,
            // The server's clock is 60 s ahead of the client's: the wait is still 5 s.
            headers: {
              'retry-after': 'Sat, 21 Nov 2026 10:01:05 GMT',
              date: 'Sat, 21 Nov 2026 10:01:00 GMT',
            },
          }
        : { body: { TaxEnvironments: [] } };
    });
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url },
      { clock, random: () => 0.5 },
    );
    await driveClock(clock, client.call('taxEnvironments/getAll', {}));
    await client.close();
    expect(seenAt[1]! - seenAt[0]!).toBeGreaterThanOrEqual(5000);
    expect(seenAt[1]! - seenAt[0]!).toBeLessThan(60_000);
  });

  it('backs off with jitter when Retry-After is missing, then gives up after the bound', async () => {
    const clock = new ManualClock();
    server = await startJsonServer(() => ({ status: 429 }));
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url },
      {
        clock,
        random: () => 1,
        retryLimits: {
          maxServerRetries: 0,
          maxRateLimitRetries: 3,
          baseDelayMs: 100,
          maxDelayMs: 1000,
        },
      },
    );
    const started = clock.now();
    const error = await driveClock(
      clock,
      client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e),
      50,
    );
    await client.close();
    expect(error).toMatchObject({ category: 'rate-limit' });
    expect(server.requests).toHaveLength(4);
    expect(clock.now() - started).toBeGreaterThanOrEqual(100 + 200 + 400);
  });
});

describe('timeouts and server errors', () => {
  it('halves Limitation.Count after a 408 and retries', async () => {
    const counts: number[] = [];
    server = await startJsonServer((request) => {
      const count = (request.body as { Limitation: { Count: number } }).Limitation.Count;
      counts.push(count);
      return count > 250
        ? { status: 408, body: { Message: 'too heavy' } }
        : { body: { Customers: [], Cursor: null } };
    });
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    await client.call('customers/getAll', CUSTOMERS_BODY);
    await client.close();
    expect(counts).toEqual([1000, 500, 250]);
  });

  it('retries a 500 a bounded number of times with backoff', async () => {
    const clock = new ManualClock();
    server = await startJsonServer(() => ({ status: 500, body: { Message: 'oops' } }));
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url, rateLimit: false },
      {
        clock,
        random: () => 0.5,
        retryLimits: {
          maxServerRetries: 2,
          maxRateLimitRetries: 0,
          baseDelayMs: 100,
          maxDelayMs: 1000,
        },
      },
    );
    const error = await driveClock(
      clock,
      client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e),
      50,
    );
    await client.close();
    expect(error).toMatchObject({ category: 'internal', retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 401, 403])('never retries HTTP %i', async (status) => {
    server = await startJsonServer(() => ({ status, body: { Message: 'no' } }));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    await expect(client.call('taxEnvironments/getAll', {})).rejects.toBeInstanceOf(ConnectorError);
    await client.close();
    expect(server.requests).toHaveLength(1);
  });

  it('reports malformed JSON on a 200 as a response error', async () => {
    server = await startJsonServer(() => ({ rawBody: '{"TaxEnvironments": [' }));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    await expect(client.call('taxEnvironments/getAll', {})).rejects.toMatchObject({
      category: 'response',
    });
    await client.close();
  });
});

describe('pagination', () => {
  function pagedServer(total: number): (request: { body: unknown }) => CannedResponse {
    const ids = UUIDS.slice(0, total);
    return (request) => {
      const { Count, Cursor } = (
        request.body as { Limitation: { Count: number; Cursor?: string | null } }
      ).Limitation;
      const start = Cursor ? ids.indexOf(Cursor) + 1 : 0;
      const page = ids.slice(start, start + Count);
      return { body: { Customers: page.map(customer), Cursor: page.at(-1) ?? null } };
    };
  }

  it('walks 2,500 records in pages of 1,000, 1,000 and 500 and stops on a short page', async () => {
    server = await startJsonServer(pagedServer(2500));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const sizes: number[] = [];
    const seen = new Set<string>();
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY)) {
      sizes.push(page.items.length);
      for (const item of page.items) seen.add(item.Id);
    }
    await client.close();
    expect(sizes).toEqual([1000, 1000, 500]);
    expect(seen.size).toBe(2500);
    expect(
      server.requests.map((r) => (r.body as { Limitation: { Cursor?: string } }).Limitation.Cursor),
    ).toEqual([undefined, UUIDS[999], UUIDS[1999]]);
  });

  it('asks once more after a full last page and stops on the null Cursor', async () => {
    server = await startJsonServer(pagedServer(2000));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const pages = [];
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY)) pages.push(page);
    await client.close();
    expect(pages.map((p) => [p.items.length, p.cursor, p.last])).toEqual([
      [1000, UUIDS[999], false],
      [1000, UUIDS[1999], false],
      [0, null, true],
    ]);
  });

  it('hands a screen each page raw, validates only what it keeps, and still walks every page', async () => {
    server = await startJsonServer(pagedServer(2500));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const seenByScreens: number[] = [];
    // Passes over every other record: the walk still ends on the short last page.
    const screens = () => ({
      screen(items: readonly unknown[]) {
        seenByScreens.push(items.length);
        return items.filter((_, index) => index % 2 === 0);
      },
    });
    const pages = [];
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY, { screens }))
      pages.push(page);
    await client.close();
    expect(seenByScreens).toEqual([1000, 1000, 500]);
    expect(pages.map((p) => [p.items.length, p.passedOver, p.last])).toEqual([
      [500, 500, false],
      [500, 500, false],
      [250, 250, true],
    ]);
    expect(pages.every((p) => p.screen !== undefined)).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it('does not validate what a screen passes over', async () => {
    const broken = { ...customer(UUIDS[7]!), CreatedUtc: 'not a date' };
    server = await startJsonServer(() => ({
      body: { Customers: [customer(UUIDS[6]!), broken], Cursor: null },
    }));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const passBroken = () => ({
      screen: (items: readonly unknown[]) =>
        items.filter((item) => (item as { Id: string }).Id !== UUIDS[7]),
    });
    const screened = [];
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY, {
      screens: passBroken,
    }))
      screened.push(page.items.map((item) => item.Id));
    expect(screened).toEqual([[UUIDS[6]]]);
    const unscreened = client.paginate('customers/getAll', CUSTOMERS_BODY).next();
    await expect(unscreened).rejects.toMatchObject({
      category: 'response',
      details: { recordId: UUIDS[7] },
    });
    await client.close();
  });

  it('takes a page a screen passes over whole from its text: no item handed back, the walk and the rest of the page as parsed', async () => {
    server = await startJsonServer(pagedServer(2500));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const textsSeen: number[] = [];
    // Passes over the first page from its text; the others are parsed and screened as usual.
    const screens = () => ({
      screen: (items: readonly unknown[]) => [...items],
      screenText(text: string, itemsKey: string) {
        const items = (JSON.parse(text) as Record<string, unknown[]>)[itemsKey] ?? [];
        textsSeen.push(items.length);
        if (textsSeen.length > 1) return undefined;
        return { text: JSON.stringify({ Customers: [], Cursor: UUIDS[999] }), passedOver: 1000 };
      },
    });
    const pages = [];
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY, { screens }))
      pages.push(page);
    await client.close();
    expect(textsSeen).toEqual([1000, 1000, 500]);
    expect(pages.map((p) => [p.items.length, p.passedOver, p.cursor, p.last])).toEqual([
      [0, 1000, UUIDS[999], false],
      [1000, 0, UUIDS[1999], false],
      [500, 0, UUIDS[2499], true],
    ]);
  });

  it('holds the rest of a page passed over as text to the contract', async () => {
    server = await startJsonServer(() => ({ body: { Customers: [], Cursor: 5 } }));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const screens = () => ({
      screen: (items: readonly unknown[]) => [...items],
      screenText: (text: string) => ({ text, passedOver: 3 }),
    });
    const first = client.paginate('customers/getAll', CUSTOMERS_BODY, { screens }).next();
    await expect(first).rejects.toMatchObject({
      category: 'response',
      details: { path: 'Cursor' },
    });
    const notJson = () => ({
      screen: (items: readonly unknown[]) => [...items],
      screenText: () => ({ text: '{"Customers":[]', passedOver: 3 }),
    });
    const second = client.paginate('customers/getAll', CUSTOMERS_BODY, { screens: notJson }).next();
    await expect(second).rejects.toThrow(/not JSON/);
    await client.close();
  });

  it('costs one request for an empty window', async () => {
    server = await startJsonServer(pagedServer(0));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    for await (const page of client.paginate('customers/getAll', CUSTOMERS_BODY))
      expect(page.last).toBe(true);
    await client.close();
    expect(server.requests).toHaveLength(1);
  });
});

describe('Portfolio Access Token scope', () => {
  // connector-api.md #1: ChainIds is "required with Portfolio Access Tokens, ignored otherwise",
  // so for an ordinary AccessToken (no portfolioScope configured) it is not a filter.
  it('refuses customers/getAll whose only filter is ChainIds for an ordinary AccessToken, sending nothing', async () => {
    server = await startJsonServer(() => ({ body: { Customers: [], Cursor: null } }));
    const client = createConnectorClient({ ...CONFIG, baseUrl: server.url, rateLimit: false });
    const { CustomerIds: _ids, ...noFilter } = CUSTOMERS_BODY;
    const chainOnly = client.call('customers/getAll', { ...noFilter, ChainIds: [UUIDS[0]!] });
    await expect(chainOnly).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('CustomerIds: required when no other filter'),
    });
    await client.call('customers/getAll', { ...CUSTOMERS_BODY, ChainIds: [UUIDS[0]!] });
    await client.close();
    expect(server.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({ CustomerIds: CUSTOMERS_BODY.CustomerIds, ChainIds: [UUIDS[0]] }),
    ]);
  });

  it('takes a given ChainIds as the filter of customers/getAll for a Portfolio Access Token', async () => {
    server = await startJsonServer(() => ({ body: { Customers: [], Cursor: null } }));
    const client = createConnectorClient({
      ...CONFIG,
      baseUrl: server.url,
      rateLimit: false,
      portfolioScope: { chainIds: [UUIDS[0]!, UUIDS[1]!] },
    });
    const { CustomerIds: _ids, ...noFilter } = CUSTOMERS_BODY;
    await client.call('customers/getAll', { ...noFilter, ChainIds: [UUIDS[1]!] });
    await client.close();
    expect(server.requests[0]!.body).toMatchObject({ ChainIds: [UUIDS[1]] });
  });

  it('adds ChainIds to customers/getAll and ChainId to customers/update', async () => {
    server = await startJsonServer((request) =>
      request.path.endsWith('getAll')
        ? { body: { Customers: [], Cursor: null } }
        : { body: customer(UUIDS[5]!) },
    );
    const client = createConnectorClient({
      ...CONFIG,
      baseUrl: server.url,
      rateLimit: false,
      portfolioScope: { chainIds: [UUIDS[0]!] },
    });
    await client.call('customers/getAll', CUSTOMERS_BODY);
    await client.call('customers/update', { CustomerId: UUIDS[5]! });
    await client.close();
    expect(server.requests[0]!.body).toMatchObject({ ChainIds: [UUIDS[0]] });
    expect(server.requests[1]!.body).toMatchObject({ ChainId: UUIDS[0] });
  });

  it('narrows every read that takes EnterpriseIds or ChainIds to the configured scope; a given filter wins', async () => {
    server = await startJsonServer(() => ({
      body: { Resources: [], AccountNotes: [], Cursor: null },
    }));
    const client = createConnectorClient({
      ...CONFIG,
      baseUrl: server.url,
      rateLimit: false,
      portfolioScope: { chainIds: [UUIDS[0]!], enterpriseIds: [UUIDS[1]!] },
    });
    await client.call('resources/getAll', { Limitation: { Count: 10 } });
    await client.call('accountNotes/getAll', { Limitation: { Count: 10 } });
    await client.call('resources/getAll', {
      Limitation: { Count: 10 },
      EnterpriseIds: [UUIDS[2]!],
    });
    await client.close();
    const filters = (body: unknown) => {
      const { EnterpriseIds, ChainIds } = body as Record<string, unknown>;
      return [EnterpriseIds, ChainIds];
    };
    expect(server.requests.map((r) => filters(r.body))).toEqual([
      [[UUIDS[1]], undefined],
      [undefined, [UUIDS[0]]],
      [[UUIDS[2]], undefined],
    ]);
  });
});
