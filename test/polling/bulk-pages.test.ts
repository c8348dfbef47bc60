import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollDueStreams } from '../../shared/polling/poll-due-streams.ts';
import { emittingCustomerStreams, type PollHarness, startPollHarness } from './poll-harness.ts';

const PAGE = 50;

/** Counts the pages the poller holds, as the local run's BulkPageWork does. */
function recordingPages() {
  const pages = { began: 0, ended: 0, held: 0, heldAtMost: 0 };
  return {
    pages,
    begin() {
      pages.began++;
      pages.held++;
      pages.heldAtMost = Math.max(pages.heldAtMost, pages.held);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        pages.ended++;
        pages.held--;
      };
    },
  };
}

// The local run's bulk dispatch lane waits while a page of bulk reading is in hand.
describe('the windowed poller telling its bulk pages', () => {
  let harness: PollHarness;
  let definitions: StreamDefinition[];
  const customerPages = () =>
    harness.sim.controls.requestLog().filter((r) => r.operation === 'customers/getAll').length;

  beforeAll(async () => {
    harness = await startPollHarness('small', 13);
    definitions = emittingCustomerStreams(harness);
  });
  afterAll(async () => harness.close());

  it('holds each page of a first sync from its arrival until it is stored, and none of a live poll', async () => {
    const recording = recordingPages();
    const deps = (): PollDeps => ({
      ...harness.deps('chain'),
      pageCount: PAGE,
      bulkPages: recording,
    });
    const [first] = await pollDueStreams(definitions, deps(), 'test');
    expect(first).toMatchObject({ kind: 'polled', caughtUp: true });
    const pages = customerPages();
    expect(pages).toBeGreaterThan(1);
    // Every page read was held, and let go once stored: none is left held.
    expect(recording.pages.began).toBe(pages);
    expect(recording.pages.ended).toBe(pages);
    expect(recording.pages.held).toBe(0);
    // A page's storing overlaps the next page's judging (read ahead): two at once, never more.
    expect(recording.pages.heldAtMost).toBeLessThanOrEqual(2);

    // Caught up: the next poll is live work, which the bulk lane does not wait for.
    await harness.clock.advance(definitions[0]!.intervalMs);
    const [live] = await pollDueStreams(definitions, deps(), 'test');
    expect(live).toMatchObject({ kind: 'polled' });
    expect(customerPages()).toBeGreaterThan(pages);
    expect(recording.pages.began).toBe(pages);
  });
});
