import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';

/** The most arrivals within any `windowMs` (half-open, as the server counts them). */
function busiestWindow(arrivals: readonly number[], windowMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - windowMs) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

describe('the connector budget as the server counts arrivals, with slow answers in flight', () => {
  const arrivals: number[] = [];
  let server: Server;
  let url = '';

  beforeAll(async () => {
    // The first 16 requests take long to answer (heavy pages); the others are answered at once.
    server = createServer((request, response) => {
      arrivals.push(Date.now());
      const slow = arrivals.length <= 16;
      request.resume();
      request.on('end', () => {
        setTimeout(
          () => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ TaxEnvironments: [] }));
          },
          slow ? 2_000 : 0,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends each granted request at once, so no window of the server counts more than the limit', async () => {
    const client = createConnectorClient(
      {
        baseUrl: url,
        clientToken: 'client',
        accessToken: 'budget-arrivals-token',
        client: 'test',
        rateLimit: { requests: 20, windowMs: 1_000 },
      },
      { budgetMarginMs: 300 },
    );
    try {
      await Promise.all(
        Array.from({ length: 40 }, () => client.call('taxEnvironments/getAll', {})),
      );
    } finally {
      await client.close();
    }
    expect(arrivals).toHaveLength(40);
    // Before, requests granted while every pooled connection was busy waited in the pool and
    // arrived together with the next window's grants: more than 20 in one second.
    expect(busiestWindow(arrivals, 1_000)).toBeLessThanOrEqual(20);
  });
});
