import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BackfillJobViewSchema } from '../../shared/admin/schemas.ts';
import { STREAM_LINES_MAX } from '../../shared/cli/admin/backfill-progress.ts';
import { runCli } from '../../shared/cli/main.ts';
import { streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
let proxy: Server;
let proxyUrl: string;
/** The path and query of every GET /backfill/{id} the CLI sent. */
let reads: URL[];
/** Run before the first GET /backfill/{id} is answered: what the pollers do meanwhile. */
let meanwhile: () => Promise<void>;

/** Every stream of the job caught up, but `parkedId`, parked. */
async function catchUp(parkedId?: string): Promise<void> {
  const state = cli.harness.state;
  const now = new Date(cli.harness.clock.now()).toISOString();
  for (const stored of await state.listStreams()) {
    const parked = stored.streamId === parkedId;
    await state.saveStream(
      parked
        ? { ...stored, parked: true, parkedReason: 'token refused', lastError: 'token refused' }
        : { ...stored, initialSyncDone: true, watermark: now },
      stored.version,
    );
  }
}

beforeAll(async () => {
  // Forwards to the admin API, noting the job reads.
  proxy = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://proxy');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === 'GET' && url.pathname.startsWith('/backfill/')) {
      if (reads.length === 0) await meanwhile();
      reads.push(url);
    }
    const answer = await fetch(`${cli.server.url}${url.pathname}${url.search}`, {
      method: request.method ?? 'GET',
      headers: { 'content-type': 'application/json' },
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
beforeEach(async () => {
  // Each test its own bridge: a second job over caught-up streams would be a pass.
  cli = await startCliHarness();
  // 21 connections of 3 streams: more than a line per stream shows.
  for (let i = 1; i <= 20; i++)
    cli.harness.streams.push(...streamDefinitions(`h${i}`, cli.harness.settings));
  expect(cli.harness.streams.length).toBeGreaterThan(STREAM_LINES_MAX);
  reads = [];
  meanwhile = () => catchUp();
});
afterEach(async () => {
  await cli?.close();
});
afterAll(async () => {
  if (proxy) {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

async function backfill(...flags: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const args = ['backfill', '--poll-interval', '100ms', ...flags, '--api', proxyUrl];
  const code = await runCli(args, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('change-bridge backfill of more streams than it shows a line for', () => {
  it('reads the totals alone and prints the stream counts instead of a line per stream', async () => {
    const { code, stdout } = await backfill();

    expect(code).toBe(0);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read.searchParams.get('streams')).toBe('0');
    expect(stdout).toContain('63 streams');
    expect(stdout).toMatch(/total 100%: 63 streams: 63 caught up · read/);
    expect(stdout).not.toContain('h1:customer');
  });

  it('with --json still prints every stream of the job in each sample', async () => {
    const { code, stdout } = await backfill('--json');

    expect(code).toBe(0);
    for (const read of reads) expect(read.searchParams.has('streams')).toBe(false);
    const samples = stdout.split('\n').map((line) => BackfillJobViewSchema.parse(JSON.parse(line)));
    for (const sample of samples) expect(sample.streams).toHaveLength(63);
  });

  it('names the streams that parked when it ends, asking for the unfinished ones alone', async () => {
    meanwhile = () => catchUp('h7:resource');

    const { code, stderr } = await backfill();

    expect(code).toBe(1);
    expect(stderr).toContain('h7:resource (parked: token refused)');
    expect(stderr).toContain('62 of 63 streams caught up');
    // The last read asks for a few streams, the unfinished first, not the job's 63.
    const asked = Number(reads.at(-1)?.searchParams.get('streams') ?? Number.NaN);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(63);
  });
});
