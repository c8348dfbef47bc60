import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useDynamoBridges } from './support/dynamo-bridge.ts';

/** The dynalite bridge (connections kept as `change-bridge start` keeps them), a table per test. */
const bridgeWithHotel = useDynamoBridges('connection-size');

describe('POST /connections on DynamoDB (dynalite)', () => {
  it('refuses input too large to store with a 400 naming the field, never a 500', async () => {
    const { call, harness } = await bridgeWithHotel();
    const cases: [Record<string, unknown>, string][] = [
      [{ accessToken: 't'.repeat(500_000) }, 'accessToken'],
      [{ productIds: Array.from({ length: 12_000 }, () => randomUUID()) }, 'productIds'],
      [{ exportIds: Array.from({ length: 12_000 }, () => randomUUID()) }, 'exportIds'],
    ];
    for (const [fields, field] of cases) {
      const answer = await call('POST', '/connections', {
        id: `big-${field.toLowerCase()}`,
        accessToken: 'hotel-token',
        ...fields,
      });
      expect(answer.status, field).toBe(400);
      expect((answer.body as { field: string }).field, field).toBe(field);
    }
    expect(harness.errors).toEqual([]);
  });
});
