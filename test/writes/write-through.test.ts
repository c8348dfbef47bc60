import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import type { RunningBridge } from '../../shared/local/runtime.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { startTestReceiver, type TestReceiver } from '../e2e/webhook-receiver.ts';
import {
  type InProcessBridge,
  type PublishedEvent,
  startInProcessBridge,
} from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

describe('write-through: the six write operations through the admin API proxy', () => {
  let sim: RunningSimulator;
  let started: InProcessBridge;
  let bridge: RunningBridge;
  let receiver: TestReceiver;
  const latencies: number[] = [];
  /** The event of each write with its answer: whether the bridge had published it by then. */
  const publishedByAnswer: { event: string; published: boolean }[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 17 });
    receiver = await startTestReceiver();
    started = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer,paymentRequest' });
    bridge = started.bridge;
    await started.subscribe(receiver);
  }, 60_000);

  afterAll(async () => {
    const sorted = [...latencies].sort((a, b) => a - b);
    console.info(`write-through latencies (ms): ${sorted.join(', ')}`);
    await started?.close();
    await receiver?.close();
    await sim?.close();
  });

  /**
   * Sends one call through the proxy; `at` is when it was sent (latency counts from there),
   * `published` what the bridge had published when the answer came.
   */
  async function write(operation: string, body: unknown) {
    const at = Date.now();
    const response = await fetch(`${bridge.adminUrl}/api/connector/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const published: readonly PublishedEvent[] = [...started.published];
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      at,
      published,
    };
  }

  async function directly(operation: string, body: Record<string, unknown>) {
    const response = await fetch(`${sim.url}/api/connector/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ClientToken: sim.tokens.clientToken,
        AccessToken: sim.tokens.accessToken,
        Client: 'test',
        ...body,
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The event `type` of `subject` as delivered, noting whether `written`'s answer followed its publication. */
  async function eventOf(
    type: string,
    subject: string,
    written: { at: number; published: readonly PublishedEvent[] },
  ) {
    publishedByAnswer.push({
      event: `${type} ${subject}`,
      published: written.published.some((e) => e.type === type && e.subject === subject),
    });
    const event = await waitFor(
      () => receiver.received.find((e) => e.type === type && e.subject === subject),
      10_000,
      `${type} ${subject}`,
    );
    latencies.push(Date.now() - written.at);
    return event;
  }

  const model = () => sim.controls.model;
  const enterprise = () => model().world.enterprises[0]!;

  it("customers/update answers the connector's customer, publishes customer.updated, and the next poll emits nothing more", async () => {
    const customer = [...model().customers.all()][0]!.record;
    const result = await write('customers/update', {
      CustomerId: customer.Id,
      Notes: 'write-through note',
    });
    expect(result.status).toBe(200);
    expect(result.body.Id).toBe(customer.Id);
    expect(result.body.Notes).toBe('write-through note');
    expect(result.body).toEqual(model().customers.get(customer.Id)!.record);
    const event = await eventOf('customer.updated', customer.Id, result);
    // The following poll of customers covers the write and finds the stored snapshot current.
    await waitFor(
      async () => {
        const streams = (await (await fetch(`${bridge.adminUrl}/streams`)).json()) as {
          streams: { entityType: string; watermark: string | null }[];
        };
        const stream = streams.streams.find((s) => s.entityType === 'customer');
        return stream?.watermark && Date.parse(stream.watermark) > result.at + 500
          ? true
          : undefined;
      },
      30_000,
      'a customer poll after the write',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const same = receiver.received.filter((e) => e.subject === customer.Id);
    expect(same).toEqual([event]);
    // Repeating the same write changes nothing: the stored snapshot is current, no event.
    const repeat = await write('customers/update', {
      CustomerId: customer.Id,
      Notes: 'write-through note',
    });
    expect(repeat.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((e) => e.subject === customer.Id)).toEqual([event]);
  }, 60_000);

  it('loyaltyPrograms/update answers the updated programs and publishes loyaltyProgram.updated', async () => {
    const program = [...model().loyaltyPrograms.all()][0]!.record;
    const result = await write('loyaltyPrograms/update', {
      ChainId: program.ChainId,
      LoyaltyProgramUpdates: [
        { LoyaltyProgramId: program.Id, Name: { Value: 'Renamed by write-through' } },
      ],
    });
    expect(result.status).toBe(200);
    expect(result.body.LoyaltyPrograms).toEqual([model().loyaltyPrograms.get(program.Id)!.record]);
    await eventOf('loyaltyProgram.updated', program.Id, result);
  });

  it('paymentRequests/add answers the created requests and publishes paymentRequest.created', async () => {
    const customer = [...model().customers.all()][1]!.record;
    const result = await write('paymentRequests/add', {
      EnterpriseId: enterprise().Id,
      PaymentRequests: [
        {
          AccountId: customer.Id,
          Amount: { Currency: 'EUR', Value: 25 },
          Type: 'Payment',
          Reason: 'Deposit',
          ExpirationUtc: new Date(Date.now() + 86_400_000).toISOString(),
          Description: 'deposit via write-through',
        },
      ],
    });
    expect(result.status).toBe(200);
    const created = (result.body.PaymentRequests as { Id: string }[])[0]!;
    expect(created).toEqual(model().paymentRequests.get(created.Id)!.record);
    await eventOf('paymentRequest.created', created.Id, result);
  });

  it('routingRules/update answers the updated rules and publishes routingRule.updated', async () => {
    const rule = [...model().routingRules.all()][0]!.record;
    const applicability = rule.Applicability === 'Always' ? 'PrepaidOnly' : 'Always';
    const result = await write('routingRules/update', {
      RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, Applicability: { Value: applicability } }],
    });
    expect(result.status).toBe(200);
    expect(result.body.RoutingRules).toEqual([model().routingRules.get(rule.Id)!.record]);
    await eventOf('routingRule.updated', rule.Id, result);
  });

  it('vouchers/add answers the added vouchers and publishes voucher.created', async () => {
    const service = enterprise().services[0]!;
    const result = await write('vouchers/add', {
      EnterpriseId: enterprise().Id,
      VoucherParameters: [
        { ServiceId: service.Id, Name: 'WT-17', Type: 'Public', CompanyId: null },
      ],
    });
    expect(result.status).toBe(200);
    const voucher = (result.body.Vouchers as { Id: string }[])[0]!;
    expect(voucher).toEqual(model().vouchers.get(voucher.Id)!.record);
    await eventOf('voucher.created', voucher.Id, result);
  });

  it('restrictions/clear answers the empty object and publishes restriction.cleared', async () => {
    const service = enterprise().services[0]!;
    const result = await write('restrictions/clear', {
      ServiceId: service.Id,
      Data: [{ Type: 'Stay' }],
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({});
    await eventOf('restriction.cleared', service.Id, result);
  });

  it("a failed write answers the connector's error unchanged and publishes nothing", async () => {
    const [first, second] = [...model().customers.all()]
      .map((entry) => entry.record)
      .filter((customer) => customer.Email);
    const countBefore = receiver.received.length;
    // 403: the email belongs to another customer (customers/update rule 3).
    const taken = { CustomerId: first!.Id, Email: second!.Email };
    const refused = await write('customers/update', taken);
    expect(refused.status).toBe(403);
    expect(refused.body.Message).toMatch(/already uses this email/);
    const direct = await directly('customers/update', taken);
    expect(refused.body).toEqual({ ...direct.body, RequestId: refused.body.RequestId });
    // 400: a body the schema accepts but the connector refuses (no such customer).
    const unknown = { CustomerId: '00000000-0000-4000-8000-000000000017', Notes: 'x' };
    const bad = await write('customers/update', unknown);
    expect(bad.status).toBe(400);
    const badDirect = await directly('customers/update', unknown);
    expect(bad.body).toEqual({ ...badDirect.body, RequestId: bad.body.RequestId });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.length).toBe(countBefore);
  });

  it('refuses a body that breaks the request schema or carries connector tokens, without forwarding it', async () => {
    const invalid = await write('customers/update', { CustomerId: 'not-a-uuid' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.field).toBe('CustomerId');
    const tokens = await write('customers/update', {
      CustomerId: [...model().customers.all()][0]!.record.Id,
      AccessToken: 'stolen',
    });
    expect(tokens.status).toBe(400);
    expect(tokens.body.field).toBe('AccessToken');
  });

  it("change-bridge call --via-bridge writes through the proxy and prints the connector's answer", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    const service = enterprise().services[0]!;
    const body = {
      EnterpriseId: enterprise().Id,
      VoucherParameters: [{ ServiceId: service.Id, Name: 'CLI-17', Type: 'Public' }],
    };
    const code = await runCli(
      [
        'call',
        'vouchers/add',
        '--via-bridge',
        '--api',
        bridge.adminUrl,
        '--json',
        '--data',
        JSON.stringify(body),
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const voucher = (JSON.parse(out.join('')) as { Vouchers: { Id: string }[] }).Vouchers[0]!;
    expect(voucher).toEqual(model().vouchers.get(voucher.Id)!.record);
    await waitFor(
      () => receiver.received.find((e) => e.type === 'voucher.created' && e.subject === voucher.Id),
      10_000,
      'the voucher.created of the CLI write',
    );
    const refused = await runCli(
      [
        'call',
        'customers/update',
        '--api',
        bridge.adminUrl,
        '--data',
        JSON.stringify({ CustomerId: '00000000-0000-4000-8000-000000000017' }),
      ],
      io,
    );
    expect(refused).toBe(1);
    expect(err.join('')).toContain('no such customer');
  });

  it('publishes the event of each of the six writes before answering it, not at a later poll', () => {
    expect(publishedByAnswer).toHaveLength(6);
    expect(publishedByAnswer.filter((write) => !write.published)).toEqual([]);
    expect(receiver.rejected).toBe(0);
  });
});
