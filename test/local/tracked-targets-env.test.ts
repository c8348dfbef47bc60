import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { productSamples } from '../../shared/simulator/product-samples.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

interface StreamRow {
  id: string;
  lastSuccessAt: string | null;
  recordsRead: number;
}

describe('start with POLL_EXPORT_IDS and POLL_PRODUCT_IDS', () => {
  let sim: RunningSimulator;
  let running: InProcessBridge | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: 'small', rateLimit: false });
  }, 30_000);

  afterAll(async () => {
    await running?.close();
    await sim?.close();
  });

  it('follows the exports and prices the products the variables name', async () => {
    const [exported] = [...sim.controls.model.exports.all()];
    const [sample] = productSamples(sim.controls.model.world, 1);
    if (!exported || !sample) throw new Error('the simulator has no export or product');
    running = await startInProcessBridge(sim, {
      POLL_ENTITIES: 'export,productPrice',
      POLL_EXPORT_IDS: exported.record.Id,
      POLL_PRODUCT_IDS: `${sample.productId}@${sample.timeZone}`,
    });
    const { adminUrl } = running.bridge;
    const rows = await waitFor(
      async () => {
        const body = (await (await fetch(`${adminUrl}/streams`)).json()) as {
          streams: StreamRow[];
        };
        return body.streams.every((row) => row.lastSuccessAt) ? body.streams : false;
      },
      20_000,
      'both streams’ first successful poll',
    );
    const read = Object.fromEntries(rows.map((row) => [row.id, row.recordsRead]));
    // Before, start ignored both variables: the streams polled nothing and read 0 records.
    expect(read['local:export']).toBe(1);
    expect(read['local:productPrice']).toBeGreaterThan(0);
  });

  it('refuses a product whose time zone is not a zone, naming the variable and the entry by place', async () => {
    const attempt = startInProcessBridge(sim, {
      POLL_ENTITIES: 'productPrice',
      POLL_PRODUCT_IDS: `${crypto.randomUUID()}@Europe/Pargue`,
    });
    await expect(attempt).rejects.toThrow(ValidationError);
    await expect(attempt).rejects.toThrow(
      'POLL_PRODUCT_IDS[0]: after @ comes an IANA time zone such as Europe/Prague',
    );
  });
});
