import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serializeAdminBody } from '../../shared/admin/response-body.ts';
import type { OperationName } from '../../shared/connector/operations.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { collectingPublisher, simulatorConnector } from './support/simulator-writes.ts';

describe('the connector proxy and a write whose answer breaks the contract', () => {
  let sim: RunningSimulator;
  let harness: AdminHarness;
  const published: PublishableEvent[] = [];
  const reported: { error: unknown; operation: OperationName }[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 53, rateLimit: false });
    harness = createAdminHarness();
    harness.deps.writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: simulatorConnector(sim),
      scope: {},
      publisher: collectingPublisher(published),
      state: harness.state,
      streams: harness.streams,
      clock: harness.clock,
      onPublishError: (error, operation) => reported.push({ error, operation }),
    });
  }, 30_000);

  afterEach(() => {
    sim.controls.setFaults({ script: [] });
    reported.length = 0;
    published.length = 0;
  });

  afterAll(async () => {
    await harness?.deps.writeThrough?.close();
    await harness?.close();
    await sim?.close();
  });

  function addVoucher(name: string) {
    const enterprise = sim.controls.model.world.enterprises[0]!;
    return harness.call('POST', '/api/connector/v1/vouchers/add', {
      body: {
        EnterpriseId: enterprise.Id,
        VoucherParameters: [{ ServiceId: enterprise.services[0]!.Id, Name: name, Type: 'Public' }],
      },
    });
  }

  it('reports the events of an applied write it could not read the answer of', async () => {
    // The simulator adds the voucher, then sends half of its answer.
    sim.controls.setFaults({ script: ['malformed'] });
    const response = await addVoucher('cut answer');
    expect(response.status).toBe(200);
    const added = [...sim.controls.model.vouchers.all()].filter(
      (entry) => entry.record.Name === 'cut answer',
    );
    expect(added).toHaveLength(1);
    expect(published).toEqual([]);
    // Before, nothing said so: the voucher.created of an applied write was lost unsaid.
    expect(reported).toHaveLength(1);
    expect(reported[0]!.operation).toBe('vouchers/add');
    expect(String(reported[0]!.error)).toMatch(/not JSON/);
  });

  it('answers a body that is not JSON as the connector sent it, not as a JSON string', async () => {
    sim.controls.setFaults({ script: ['malformed'] });
    const response = await addVoucher('cut answer, as sent');
    expect(response.status).toBe(200);
    const sent = serializeAdminBody(response);
    // Before, the half answer went out quoted and escaped: "{\"Vouchers\":[…".
    expect(sent?.text.startsWith('{"Vouchers":[{"Id":')).toBe(true);
    expect(sent?.contentType).toMatch(/^application\/json/);
  });
});
