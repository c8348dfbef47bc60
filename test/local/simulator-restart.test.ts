import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { type RunningBridge, startBridge } from '../../shared/local/runtime.ts';
import type { JournalEntry } from '../../shared/simulator/journal.ts';
import { testLocalConfig } from '../support/local-config.ts';
import { waitFor } from '../support/wait-for.ts';

/** An event line the bridge's `--json` reporter printed. */
interface ReportedEvent {
  type: string;
  subject: string;
  changedFields: string[];
}

/**
 * Longest wait for a round of every stream's polls, or for an event: alone under a second; on a
 * loaded machine (load 6-18 on 2 cores) a round took past 15 s. The test's own timeout is six
 * of these: its five waits, and its two starts and stops.
 */
const ROUND_WAIT_MS = 60_000;

/** The key an entity goes by in the journal and in events (a product price by its product). */
function entityKey(type: string, id: string): string {
  return type === 'productPrice' ? `${type} ${id.split(':')[0]}` : `${type} ${id}`;
}

describe('change-bridge start with the built-in simulator, restarted on the same data dir', () => {
  let dataDir: string;
  const events: ReportedEvent[] = [];
  const reporter = jsonReporter({
    write: (text) => {
      for (const line of text.split('\n')) {
        const parsed = JSON.parse(line) as { message: string } & ReportedEvent;
        if (parsed.message === 'event') events.push(parsed);
      }
    },
    now: () => Date.now(),
  });

  /** The built-in simulator (no CONNECTOR_BASE_URL), with no rate limit to keep the sync short. */
  const start = () =>
    startBridge(testLocalConfig(dataDir, 300), { env: { SIMULATOR_RATE_LIMIT: 'off' }, reporter });

  /** Resolves once every stream has succeeded after `sinceMs`. */
  async function everyStreamPolledSince(bridge: RunningBridge, sinceMs: number): Promise<void> {
    await waitFor(
      async () => {
        const response = await fetch(`${bridge.adminUrl}/streams`);
        const { streams } = (await response.json()) as {
          streams: { lastSuccessAt: string | null }[];
        };
        return (
          streams.length > 0 &&
          streams.every(
            (stream) => stream.lastSuccessAt && Date.parse(stream.lastSuccessAt) > sinceMs,
          )
        );
      },
      ROUND_WAIT_MS,
      `every stream to succeed after ${new Date(sinceMs).toISOString()}`,
      100,
    );
  }

  /** What the running simulator journaled (activity and export lifecycle): the real changes. */
  async function journal(bridge: RunningBridge): Promise<JournalEntry[]> {
    const response = await fetch(`${bridge.simulatorUrl}/_sim/journal?since=0`);
    return ((await response.json()) as { entries: JournalEntry[] }).entries;
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cb-sim-restart-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reports only what either run of the simulator journaled, and no CreatedUtc change', async () => {
    const first = await start();
    let firstJournal: JournalEntry[];
    try {
      // The first sync takes its baseline silently; the activity's changes are then reported.
      await everyStreamPolledSince(first, Date.now());
      await waitFor(() => events.length > 0, ROUND_WAIT_MS, 'an event of the activity', 100);
      await everyStreamPolledSince(first, Date.now());
      firstJournal = await journal(first);
    } finally {
      await first.stop();
    }
    const eventsOfFirstRun = events.length;

    const second = await start();
    let secondJournal: JournalEntry[];
    let eventsBeforeSecondJournal: number;
    try {
      // Two rounds: the first after the restart may still be the poller resuming its windows.
      await everyStreamPolledSince(second, Date.now());
      await everyStreamPolledSince(second, Date.now());
      eventsBeforeSecondJournal = events.length;
      secondJournal = await journal(second);
    } finally {
      await second.stop();
    }
    // Events printed before the second journal was read: every change they report is in it.
    const afterRestart = events.slice(eventsOfFirstRun, eventsBeforeSecondJournal);

    // Real changes: either simulator's journal, and what the first run reported (a change its
    // activity made after its journal was read may revert with the restart).
    const changed = new Set([
      ...[...firstJournal, ...secondJournal].map((entry) =>
        entityKey(entry.entityType, entry.entityId),
      ),
      ...events
        .slice(0, eventsOfFirstRun)
        .map((event) => entityKey(event.type.split('.')[0]!, event.subject)),
    ]);
    // A `created` event lists every field (CreatedUtc among them): the second run's activity may
    // create a record before its journal is read. An update of CreatedUtc would be a phantom.
    const phantoms = afterRestart.filter(
      (event) =>
        !changed.has(entityKey(event.type.split('.')[0]!, event.subject)) ||
        (!event.type.endsWith('.created') && event.changedFields.includes('CreatedUtc')),
    );
    expect(phantoms).toEqual([]);
    // A new activity stream each run: the second does not create records under the first's ids.
    const created = (entries: JournalEntry[]) =>
      entries.filter((entry) => entry.kind === 'created').map((entry) => entry.entityId);
    const createdByFirst = new Set(created(firstJournal));
    expect(created(secondJournal).filter((id) => createdByFirst.has(id))).toEqual([]);
  }, 360_000);
});
