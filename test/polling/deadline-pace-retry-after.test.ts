import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import {
  changeEveryCustomer,
  type PagedCustomerStream,
  startPagedCustomerStream,
} from './paged-customer-stream.ts';
import { runOnClock, type SlowConnector, slowSimulatorConnector } from './slow-connector.ts';

/** How long each page takes to come back (on the test's clock). */
const PAGE_MS = 1_000;
/** The Retry-After of the 429 answering the job's first request. */
const RETRY_AFTER_S = 60;

/**
 * A window of 60 changed customers read by pages of 10 (the simulator, dynalite), each page
 * answered PAGE_MS after it is asked for, in a job whose first request is answered 429 with a
 * Retry-After of a minute.
 */
describe('a window read after a 429 pause, against the invocation deadline', () => {
  let h: PagedCustomerStream;
  let slow: SlowConnector;

  beforeEach(async () => {
    h = await startPagedCustomerStream();
    expect(await pollStream(h.definition, h.deps, 'first-sync')).toMatchObject({
      caughtUp: true,
    });
    await changeEveryCustomer(h, 'changed');
    slow = slowSimulatorConnector(h.sim, h.clock, PAGE_MS);
  }, 60_000);

  afterEach(async () => {
    await slow.client.close();
    await h.close();
  });

  const job = (owner: string, deadline?: number) =>
    runOnClock(h.clock, slow, () =>
      pollConnectionStreams(
        [h.definition.streamId],
        [h.definition],
        { ...h.deps, client: slow.client, ...(deadline === undefined ? {} : { deadline }) },
        owner,
      ),
    );

  it('does not take the pause for the time a page takes, and reads on until the deadline', async () => {
    const startedAt = h.clock.now();
    slow.throttleNext(RETRY_AFTER_S);
    // After the pause, three pages fit before the deadline.
    await job('job-1', startedAt + RETRY_AFTER_S * 1_000 + 3.5 * PAGE_MS);
    const cut = await h.deps.store.getStream(h.definition.streamId);
    const pages = cut?.window?.pages ?? 0;
    // Judged with the pause, the first page took 61 s and no second one fitted.
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(pages).toBeLessThanOrEqual(3);
    // The 429, then each page asked for was stored: none on its way at the deadline.
    expect(slow.asked).toHaveLength(1 + pages);
    expect(slow.aborted()).toBe(0);

    await job('job-2');
    const cursors = slow.asked
      .slice(1)
      .map((r) => (r.body.Limitation as { Cursor?: string }).Cursor ?? null);
    // Every page of the window (6 of 10, and the empty one a full page asks) asked for once.
    expect(cursors).toHaveLength(7);
    expect(new Set(cursors).size).toBe(cursors.length);
    expect(slow.aborted()).toBe(0);
  });
});
