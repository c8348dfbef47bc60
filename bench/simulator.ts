import { pathToFileURL } from 'node:url';
import { systemClock } from '../shared/clock.ts';
import { type DatasetSize, generateDataset } from '../shared/simulator/generate.ts';
import { startSimulator } from '../shared/simulator/simulator.ts';

const PAGE_REQUESTS = 200;
/** Requests before measuring, so JIT compilation is not counted. */
const WARMUP_REQUESTS = 20;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Prints the dataset generation time of each size (target: large under 10 s) and the p50/p99
 * latency of 1,000-customer pages served over HTTP from the large dataset (target: under 100 ms).
 */
export async function run(): Promise<void> {
  for (const size of ['small', 'medium', 'large'] as DatasetSize[]) {
    const started = performance.now();
    const model = generateDataset({ seed: 1, size, clock: systemClock });
    const ms = performance.now() - started;
    console.log(
      `generate ${size.padEnd(6)} ${model.customers.size.toString().padStart(7)} customers in ${ms.toFixed(0)} ms`,
    );
  }
  const sim = await startSimulator({ size: 'large', rateLimit: false });
  try {
    const body = (cursor: string | null) =>
      JSON.stringify({
        ClientToken: sim.tokens.clientToken,
        AccessToken: sim.tokens.accessToken,
        Client: 'bench',
        Limitation: { Count: 1000, Cursor: cursor },
        Extent: { Customers: true, Documents: true, Addresses: true },
        CreatedUtc: {
          StartUtc: new Date(Date.now() - 90 * 86_400_000).toISOString(),
          EndUtc: new Date().toISOString(),
        },
      });
    const latencies: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < WARMUP_REQUESTS + PAGE_REQUESTS; i += 1) {
      const started = performance.now();
      const response = await fetch(`${sim.url}/api/connector/v1/customers/getAll`, {
        method: 'POST',
        body: body(cursor),
      });
      const page: unknown = await response.json();
      if (i >= WARMUP_REQUESTS) latencies.push(performance.now() - started);
      const next =
        typeof page === 'object' && page !== null && 'Cursor' in page ? page.Cursor : null;
      cursor = typeof next === 'string' && i % 20 !== 19 ? next : null;
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `customers/getAll 1,000 per page (large, ${PAGE_REQUESTS} pages): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );
    const windows = await liveWindowLatencies(sim.url, sim.tokens);
    console.log(
      `customers/getAll of a live poll's window (the last 10 s of 100,000 customers, ${PAGE_REQUESTS} requests): p50 ${percentile(windows, 50).toFixed(1)} ms, p99 ${percentile(windows, 99).toFixed(1)} ms`,
    );
  } finally {
    await sim.close();
  }
}

/**
 * Latencies of the request a live poll makes: an `UpdatedUtc` window of the last 10 s over the
 * whole set (a few records in it; found by update time, not by walking 100,000).
 */
async function liveWindowLatencies(
  url: string,
  tokens: { clientToken: string; accessToken: string },
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < WARMUP_REQUESTS + PAGE_REQUESTS; i += 1) {
    const now = Date.now();
    const started = performance.now();
    const response = await fetch(`${url}/api/connector/v1/customers/getAll`, {
      method: 'POST',
      body: JSON.stringify({
        ClientToken: tokens.clientToken,
        AccessToken: tokens.accessToken,
        Client: 'bench',
        Limitation: { Count: 1000, Cursor: null },
        Extent: { Customers: true },
        UpdatedUtc: {
          StartUtc: new Date(now - 10_000).toISOString(),
          EndUtc: new Date(now).toISOString(),
        },
      }),
    });
    await response.json();
    if (i >= WARMUP_REQUESTS) latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
