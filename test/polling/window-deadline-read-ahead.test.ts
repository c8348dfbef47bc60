import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import {
  createUndiciTransport,
  type HttpTransport,
} from '../../shared/connector/http-transport.ts';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import {
  changeEveryCustomer,
  type PagedCustomerStream,
  startPagedCustomerStream,
} from './paged-customer-stream.ts';

/** How long each page takes to come back (wire time, on the test's clock). */
const PAGE_MS = 1_000;

/**
 * A poll job cut by its invocation's deadline (a Lambda's time left, less the margin kept to
 * save state): the simulator, dynalite and pages of 10, each page answered PAGE_MS after it is
 * asked for. A page request in flight at the deadline is aborted there, and the next job asks
 * for the same page again: a connector request spent for nothing at every cut.
 */
describe('a window read cut by the invocation deadline', () => {
  let h: PagedCustomerStream;
  /** The Cursor of each page request the connector received, in order (null: a window's first). */
  let asked: (string | null)[];
  /** Page requests waiting out their PAGE_MS. */
  let inFlight = 0;
  let client: ConnectorClient;

  beforeEach(async () => {
    h = await startPagedCustomerStream();
    expect(await pollStream(h.definition, h.deps, 'first-sync')).toMatchObject({
      caughtUp: true,
    });
    // 60 changed customers: one window of 6 pages of 10 (and the empty one a full page asks).
    await changeEveryCustomer(h, 'changed');
    asked = [];
    const http = createUndiciTransport();
    const slow: HttpTransport = {
      async postJson(url, body, options) {
        const limitation = (JSON.parse(body) as { Limitation?: { Cursor?: string | null } })
          .Limitation;
        asked.push(limitation?.Cursor ?? null);
        // Received and answered by the connector; the answer travels PAGE_MS back.
        const answer = await http.postJson(url, body, options);
        inFlight++;
        try {
          await h.clock.sleep(PAGE_MS, options?.signal);
        } finally {
          inFlight--;
        }
        return answer;
      },
      close: () => http.close(),
    };
    client = createConnectorClient(
      {
        baseUrl: h.sim.url,
        clientToken: h.sim.tokens.clientToken,
        accessToken: h.sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock: h.clock, transport: slow },
    );
  }, 60_000);

  afterEach(async () => {
    await client.close();
    await h.close();
  });

  /** Runs one poll job, moving the clock only while a page is on its way back. */
  async function runJob(owner: string, deadline?: number) {
    let settled = false;
    const job = pollConnectionStreams(
      [h.definition.streamId],
      [h.definition],
      {
        ...h.deps,
        client,
        ...(deadline === undefined ? {} : { deadline }),
      },
      owner,
    ).finally(() => {
      settled = true;
    });
    job.catch(() => undefined);
    while (!settled) {
      if (inFlight > 0) await h.clock.advance(10);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return job;
  }

  it('asks for no page it cannot have before the deadline, so the next job asks for none twice', async () => {
    const startedAt = h.clock.now();
    // Three pages fit before the deadline; a fourth asked at once would still be on its way.
    const first = await runJob('job-1', startedAt + 3.5 * PAGE_MS);
    const cut = await h.deps.store.getStream(h.definition.streamId);
    // Three at most (fewer if storing a page took long on a busy machine), and each page asked
    // for was stored: none was on its way when the job stopped.
    expect(cut?.window?.pages).toBeGreaterThanOrEqual(1);
    expect(cut?.window?.pages).toBeLessThanOrEqual(3);
    expect(asked).toHaveLength(cut!.window!.pages);
    // Stopped short of the deadline, not caught up: due again at once, for the next job.
    expect(first.outcomes).toEqual([
      { kind: 'polled', streamId: h.definition.streamId, caughtUp: false },
    ]);
    expect(h.clock.now()).toBeLessThan(startedAt + 3.5 * PAGE_MS);

    const second = await runJob('job-2');
    expect(second.outcomes).toEqual([
      { kind: 'polled', streamId: h.definition.streamId, caughtUp: true },
    ]);
    // Every page of the window asked for once: none was spent and asked for again.
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked).toHaveLength(7);
    // And every change published once, the cut notwithstanding.
    const subjects = h.deps.publisher.events.map((event) => event.subject);
    expect(subjects.length).toBeGreaterThan(50);
    expect(new Set(subjects).size).toBe(subjects.length);
  });
});
