import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

describe('product prices with a product the connector refuses', () => {
  let h: PollHarness;
  beforeAll(async () => {
    h = await startPollHarness();
  });
  afterAll(() => h.close());

  it('prices the products after it, and fails the poll naming the refusal', async () => {
    const prices = h.definitions().find((d) => d.spec.entityType === 'productPrice')!;
    const known = prices.products!;
    expect(known.length).toBeGreaterThan(0);
    // A product deleted at the connector since it was configured: first in the list.
    const gone = { productId: randomUUID(), timeZone: 'UTC' };
    const definition = { ...prices, streamId: 'sim:refused-product', products: [gone, ...known] };

    const outcome = await pollStream(definition, h.deps('chain'), 'test');
    expect(outcome).toMatchObject({ kind: 'failed', error: expect.stringContaining('ProductId') });
    let stored = 0;
    for await (const page of h.deps('chain').store.scanSnapshots(definition.streamId))
      stored += page.length;
    // Seven days of each product that exists.
    expect(stored).toBe(known.length * 7);
  });
});
