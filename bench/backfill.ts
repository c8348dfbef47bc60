import { z } from 'zod';
import { BackendsSchema } from './backfill/backends.ts';
import { startChild, stopChild } from './backfill/child.ts';
import { type BackfillReport, BackfillReportSchema } from './backfill/poller.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure } from './figures.ts';

const MB = 1024 * 1024;
/** 200 requests × 1,000 records per 30 s (design.md, Performance targets). */
const CEILING_PER_SECOND = (200 * 1000) / 30;
/** Bounded span of the throttled measurement: two full 30 s budget windows and a bit. */
const THROTTLED_SPAN_MS = 65_000;
const UNTHROTTLED_DEADLINE_MS = 180_000;

const RequestLogSchema = z.object({ requests: z.array(z.object({ status: z.number() })) });

interface BackfillRun {
  report: BackfillReport;
  requests: number;
  refused: number;
}

/** Runs the backends and the poller in two processes and collects the poller's report. */
async function backfillOnce(rateLimit: 'on' | 'off', repeat: boolean, deadlineMs: number) {
  const backends = startChild('backfill/backends.ts', { BENCH_RATE_LIMIT: rateLimit });
  try {
    const announced = BackendsSchema.parse(JSON.parse(await backends.firstLine));
    const poller = startChild('backfill/poller.ts', {
      BENCH_BACKENDS: JSON.stringify(announced),
      BENCH_RATE_LIMIT: rateLimit,
      BENCH_DEADLINE_MS: String(deadlineMs),
      BENCH_REPEAT: repeat ? 'yes' : 'no',
    });
    const report = BackfillReportSchema.parse(JSON.parse(await poller.firstLine));
    await stopChild(poller);
    const log = RequestLogSchema.parse(
      await (await fetch(`${announced.connectorUrl}/_sim/requests`)).json(),
    );
    const run: BackfillRun = {
      report,
      requests: log.requests.length,
      refused: log.requests.filter((r) => r.status === 429).length,
    };
    return run;
  } finally {
    await stopChild(backends);
  }
}

/**
 * Part benchmark (the user's path is backfill-start.ts): the poller alone, storing silently.
 * Backfill of the 100,000 customers of the large dataset: (a) unthrottled, entities/s and
 * the poller process's peak RSS (simulator and dynalite run in another process); (b) with
 * the 200 per 30 s limit in force on both sides, customers backfilled again under new stream
 * ids for a bounded span, entities/s against the 6,667/s ceiling.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log('backfill, part benchmark: the poller alone (customers, size large)');
  const free = await backfillOnce('off', false, UNTHROTTLED_DEADLINE_MS);
  const freeRate = free.report.entities / (free.report.elapsedMs / 1000);
  const peakMb = free.report.peakRssBytes / MB;
  console.log(
    `  unthrottled: ${formatNumber(free.report.entities)} customers in ${formatNumber(free.report.elapsedMs / 1000, 1)} s, ` +
      `${free.requests} requests; poller RSS ${formatNumber(free.report.baselineRssBytes / MB)} MB before, peak ${formatNumber(peakMb)} MB`,
  );
  console.log(
    `  ${formatNumber(free.report.storeMs / 1000, 1)} s (wall time) inside the state store's snapshot reads and writes (dynalite over HTTP; ` +
      `customers are stored with a conditional PutItem each, as in AWS), overlapping the next page's fetch and diff`,
  );
  recordFigure({
    figure: 'Part: poller alone (baseline, dynalite in another process), 100k customers: rate',
    measured: `${formatNumber(freeRate)} entities/s`,
    target: 'information (part benchmark)',
    met: undefined,
  });
  recordFigure({
    figure: 'Part: poller alone, 100k customers: peak RSS of the poller process',
    measured: `${formatNumber(peakMb)} MB`,
    target: 'information (part benchmark)',
    met: undefined,
  });

  const limited = await backfillOnce('on', true, THROTTLED_SPAN_MS);
  const limitedRate = limited.report.entities / (limited.report.elapsedMs / 1000);
  const share = limitedRate / CEILING_PER_SECOND;
  console.log(
    `  200 per 30 s: ${formatNumber(limited.report.entities)} customers in ${formatNumber(limited.report.elapsedMs / 1000, 1)} s ` +
      `over ${limited.report.streams} backfill(s), ${limited.requests} requests (${limited.refused} answered 429)`,
  );
  recordFigure({
    figure: 'Part: poller alone, 200 req/30 s limit in force',
    measured: `${formatNumber(limitedRate)} entities/s = ${(share * 100).toFixed(0)}% of 6,667`,
    target: 'information (part benchmark)',
    met: undefined,
  });
}

if (isMain(import.meta.url)) await run();
