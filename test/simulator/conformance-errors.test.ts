import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { COUNT_REGROW_AFTER } from '../../shared/connector/count-ceilings.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import {
  envelope,
  type Harness,
  interval,
  postRaw,
  startHarness,
  TEST_START_MS,
} from './harness.ts';

const NO_RETRIES = { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConnectorError))
    throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return error;
}

describe('conformance: error categories', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const recent = () => interval(TEST_START_MS - 30 * 86_400_000, TEST_START_MS);
  const customersBody = () => ({
    Limitation: { Count: 5 },
    Extent: { Customers: true },
    UpdatedUtc: recent(),
  });

  it('400 client error for an unknown identifier, with RequestId equal to the Request-Id header', async () => {
    const error = await failure(
      h.client.customers.getAll({
        ...customersBody(),
        Limitation: { Count: 5, Cursor: '11111111-1111-4111-8111-111111111111' },
      }),
    );
    expect(error).toMatchObject({ category: 'client', status: 400 });
    const raw = await postRaw(h.sim, 'customers/update', {
      ...envelope(h.sim),
      CustomerId: '11111111-1111-4111-8111-111111111111',
    });
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text).RequestId).toBe(raw.headers.get('request-id'));
  });

  it('401 authorization error for a wrong token and for a Portfolio token where unsupported', async () => {
    const wrong = createConnectorClient(
      {
        baseUrl: h.sim.url,
        clientToken: 'sim-client-token',
        accessToken: 'nope',
        client: 't',
        rateLimit: false,
      },
      { retryLimits: NO_RETRIES },
    );
    expect(await failure(wrong.taxEnvironments.getAll({}))).toMatchObject({
      category: 'authorization',
      status: 401,
    });
    await wrong.close();
    const portfolio = await failure(
      h.portfolio.resourceCategoryImageAssignments.getAll({ Limitation: { Count: 5 } }),
    );
    expect(portfolio).toMatchObject({ category: 'authorization', status: 401 });
  });

  it('403 server-side validation error for a business rule', async () => {
    const [a, b] = [...h.sim.controls.model.customers.all()]
      .filter((e) => e.record.Email)
      .map((e) => e.record);
    const error = await failure(h.client.customers.update({ CustomerId: a!.Id, Email: b!.Email! }));
    expect(error).toMatchObject({ category: 'validation', status: 403 });
    expect(error.message).toContain('Email');
  });

  it('408, 409 and 500 when injected, each with the error body', async () => {
    h.sim.controls.setFaults({ script: ['timeout', 'conflict', 'internal'] });
    expect(await failure(h.client.taxEnvironments.getAll({}))).toMatchObject({
      category: 'timeout',
      status: 408,
    });
    const service = h.sim.controls.model.world.enterprises[0]!.services[0]!;
    expect(
      await failure(h.client.restrictions.clear({ ServiceId: service.Id, Data: [] })),
    ).toMatchObject({ category: 'conflict', status: 409 });
    const internal = await failure(h.client.taxEnvironments.getAll({}));
    expect(internal).toMatchObject({ category: 'internal', status: 500 });
    expect(internal.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('408 for a page heavier than the configured threshold; the client halves Count and succeeds', async () => {
    h.sim.controls.setFaults({ timeoutAboveCount: 250 });
    const result = await h.client.send('customers/getAll', {
      Limitation: { Count: 1000 },
      Extent: { Customers: true },
      UpdatedUtc: interval(TEST_START_MS - 80 * 86_400_000, TEST_START_MS),
    });
    expect(result.sentBody.Limitation).toMatchObject({ Count: 250 });
    h.sim.controls.setFaults({ timeoutAboveCount: null });
    const statuses = h.sim.controls
      .requestLog()
      .slice(-3)
      .map((r) => [r.status, r.count]);
    expect(statuses).toEqual([
      [408, 1000],
      [408, 500],
      [200, 250],
    ]);
  });

  it('keeps the Count a 408 taught for the next requests, and tries twice as many after a run of successes', async () => {
    const client = createConnectorClient(
      {
        baseUrl: h.sim.url,
        clientToken: h.sim.tokens.clientToken,
        accessToken: h.sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock: h.clock },
    );
    const page = () =>
      client.send('customers/getAll', {
        Limitation: { Count: 1000 },
        Extent: { Customers: true },
        UpdatedUtc: interval(TEST_START_MS - 80 * 86_400_000, TEST_START_MS),
      });
    const counts = (requests: number) =>
      h.sim.controls
        .requestLog()
        .slice(-requests)
        .map((r) => [r.status, r.count]);
    try {
      h.sim.controls.setFaults({ timeoutAboveCount: 250 });
      await page();
      expect(counts(3)).toEqual([
        [408, 1000],
        [408, 500],
        [200, 250],
      ]);
      // The next requests ask 250 at once: no request spent on a 408.
      for (let n = 0; n < COUNT_REGROW_AFTER; n++) await page();
      expect(
        counts(COUNT_REGROW_AFTER).every(([status, count]) => status === 200 && count === 250),
      ).toBe(true);
      // After COUNT_REGROW_AFTER successes at 250 it tries 500 (the server's load may have passed).
      h.sim.controls.setFaults({ timeoutAboveCount: null });
      expect((await page()).sentBody.Limitation).toMatchObject({ Count: 500 });
    } finally {
      h.sim.controls.setFaults({ timeoutAboveCount: null });
      await client.close();
    }
  });

  it('429 with Retry-After from the sliding window of 200 per AccessToken per 30 s', async () => {
    h.sim.controls.resetRateLimits();
    for (let i = 0; i < 200; i += 1) {
      const ok = await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));
      expect(ok.status).toBe(200);
    }
    const limited = await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    const error = await failure(h.client.taxEnvironments.getAll({}));
    expect(error).toMatchObject({ category: 'rate-limit', status: 429, retryAfterMs: 30_000 });
    // The portfolio token has its own budget.
    expect(
      (await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim, h.sim.tokens.portfolioToken)))
        .status,
    ).toBe(401);
    expect(
      (
        await postRaw(h.sim, 'exports/getAll', {
          ...envelope(h.sim, h.sim.tokens.portfolioToken),
          ExportIds: ['11111111-1111-4111-8111-111111111111'],
        })
      ).status,
    ).toBe(200);
    await h.clock.advance(29_999);
    expect((await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim))).status).toBe(429);
    await h.clock.advance(1);
    expect((await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim))).status).toBe(200);
    h.sim.controls.resetRateLimits();
  });

  it('injected 429 without Retry-After, malformed JSON, dropped connections and slow answers', async () => {
    h.sim.controls.setFaults({ script: ['rate-limit'], retryAfterSeconds: null });
    const noHeader = await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));
    expect(noHeader.status).toBe(429);
    expect(noHeader.headers.get('retry-after')).toBeNull();
    h.sim.controls.setFaults({ script: ['malformed', 'drop'] });
    expect(await failure(h.client.taxEnvironments.getAll({}))).toMatchObject({
      category: 'response',
    });
    expect(await failure(h.client.taxEnvironments.getAll({}))).toMatchObject({
      category: 'network',
    });
    const impatient = createConnectorClient(
      {
        baseUrl: h.sim.url,
        clientToken: 'sim-client-token',
        accessToken: 'sim-access-token',
        client: 't',
        rateLimit: false,
        timeoutMs: 100,
      },
      { retryLimits: NO_RETRIES },
    );
    // undici checks its timeouts about once a second, so the delay must clearly exceed that.
    h.sim.controls.setFaults({ script: ['slow'], slowMs: 2500 });
    expect(await failure(impatient.taxEnvironments.getAll({}))).toMatchObject({
      category: 'network',
    });
    await impatient.close();
    expect(
      h.sim.controls
        .requestLog()
        .slice(-4)
        .map((r) => r.fault),
    ).toEqual(['rate-limit', 'malformed', 'drop', 'slow']);
  });

  it('draws random faults at the configured rate', async () => {
    h.sim.controls.setFaults({ rate: 1, kinds: ['internal'] });
    expect((await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim))).status).toBe(500);
    h.sim.controls.setFaults({ rate: 0 });
    expect((await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim))).status).toBe(200);
  });
});

describe('conformance: contract limits answer 400 naming the field', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const ids = (n: number) =>
    Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const cases: [string, string, Record<string, unknown>, string][] = [
    [
      'Count above 1000',
      'customers/getAll',
      { Limitation: { Count: 1001 }, Extent: { Customers: true }, CustomerIds: ids(1) },
      'Limitation.Count',
    ],
    ['Count below 1', 'accountNotes/getAll', { Limitation: { Count: 0 } }, 'Limitation.Count'],
    [
      'filter of 1001 ids',
      'customers/getAll',
      { Limitation: { Count: 10 }, Extent: {}, CustomerIds: ids(1001) },
      'CustomerIds',
    ],
    [
      'two CompanyIds',
      'customers/getAll',
      { Limitation: { Count: 10 }, Extent: {}, CompanyIds: ids(2) },
      'CompanyIds',
    ],
    [
      'no filter at all',
      'customers/getAll',
      { Limitation: { Count: 10 }, Extent: {} },
      'CustomerIds',
    ],
    [
      '101 BillingAutomationIds',
      'billingAutomations/getAll',
      { Limitation: { Count: 10 }, BillingAutomationIds: ids(101) },
      'BillingAutomationIds',
    ],
    [
      'no RoutingRuleUpdates',
      'routingRules/update',
      { RoutingRuleUpdates: [] },
      'RoutingRuleUpdates',
    ],
    [
      'CarRegistrationNumber of 256',
      'customers/update',
      { CustomerId: ids(1)[0], CarRegistrationNumber: 'x'.repeat(256) },
      'CarRegistrationNumber',
    ],
    [
      'Description of 1001',
      'paymentRequests/add',
      {
        PaymentRequests: [
          {
            AccountId: ids(1)[0],
            Amount: { Currency: 'EUR', Value: 1 },
            Type: 'Payment',
            Reason: 'Fee',
            ExpirationUtc: '2026-05-01T00:00:00Z',
            Description: 'x'.repeat(1001),
          },
        ],
      },
      'PaymentRequests[0].Description',
    ],
    [
      'UpdatedUtc over 3 months',
      'paymentRequests/getAll',
      {
        Limitation: { Count: 10 },
        UpdatedUtc: { StartUtc: '2026-01-01T00:00:00Z', EndUtc: '2026-04-02T00:00:00Z' },
      },
      'UpdatedUtc.EndUtc',
    ],
    ['missing Client', 'taxEnvironments/getAll', { Client: undefined }, 'Client'],
  ];
  for (const [label, operation, body, field] of cases) {
    it(`${label} → 400 naming ${field}`, async () => {
      const answer = await postRaw(h.sim, operation, { ...envelope(h.sim), ...body });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).Message).toContain(field);
    });
  }

  it('a Portfolio token without ChainIds on customers/getAll → 400 naming ChainIds', async () => {
    const answer = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim, h.sim.tokens.portfolioToken),
      Limitation: { Count: 10 },
      Extent: {},
      CustomerIds: ids(1),
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).Message).toContain('ChainIds');
  });

  it('a Portfolio token without ChainId on customers/update and loyaltyPrograms/update → 400 naming ChainId, nothing changed', async () => {
    const program = [...h.sim.controls.model.loyaltyPrograms.all()][0]!.record;
    const customer = [...h.sim.controls.model.customers.all()][0]!.record;
    const before = { program: program.Name, customer: customer.Notes };
    for (const [operation, body] of [
      [
        'loyaltyPrograms/update',
        { LoyaltyProgramUpdates: [{ LoyaltyProgramId: program.Id, Name: { Value: 'Renamed' } }] },
      ],
      ['customers/update', { CustomerId: customer.Id, Notes: 'Changed' }],
    ] as const) {
      const answer = await postRaw(h.sim, operation, {
        ...envelope(h.sim, h.sim.tokens.portfolioToken),
        ...body,
      });
      expect(answer.status, operation).toBe(400);
      expect(JSON.parse(answer.text).Message, operation).toContain('ChainId');
    }
    expect(h.sim.controls.model.loyaltyPrograms.get(program.Id)!.record.Name).toBe(before.program);
    expect(h.sim.controls.model.customers.get(customer.Id)!.record.Notes).toBe(before.customer);
  });

  it('customers/update country codes that are not ISO 3166-1 alpha-2 → 400 naming the field, nothing stored', async () => {
    const customer = [...h.sim.controls.model.customers.all()][0]!.record;
    const before = structuredClone(customer);
    for (const [field, body] of [
      ['NationalityCode', { NationalityCode: 'XXX' }],
      ['Address.CountryCode', { Address: { CountryCode: 'XXX' } }],
      ['Passport.IssuingCountryCode', { Passport: { Number: 'P1', IssuingCountryCode: 'XXX' } }],
    ] as const) {
      const answer = await postRaw(h.sim, 'customers/update', {
        ...envelope(h.sim),
        CustomerId: customer.Id,
        ...body,
      });
      expect(answer.status, field).toBe(400);
      expect(JSON.parse(answer.text).Message, field).toContain(`${field}: must be an ISO 3166-1`);
    }
    expect(h.sim.controls.model.customers.get(customer.Id)!.record).toEqual(before);
  });

  it('every answer, success or error, carries a Request-Id header; bad JSON is a 400', async () => {
    const bad = await postRaw(h.sim, 'taxEnvironments/getAll', '{"ClientToken":');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('request-id')).toBeTruthy();
    const ok = await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));
    expect(ok.headers.get('request-id')).toBeTruthy();
    // An unknown operation, a wrong method, an unknown path: a real id, repeated in the body.
    const got = async (response: Response) => ({
      headers: response.headers,
      text: await response.text(),
    });
    const answers = [
      await postRaw(h.sim, 'customers/nope', envelope(h.sim)),
      await got(await fetch(`${h.sim.url}/api/connector/v1/customers/getAll`)),
      await got(await fetch(`${h.sim.url}/elsewhere`)),
    ];
    for (const answer of answers) {
      const id = answer.headers.get('request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(answer.text).RequestId).toBe(id);
    }
  });
});
