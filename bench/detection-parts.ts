import { Session } from 'node:inspector';
import { marshall } from '@aws-sdk/util-dynamodb';
import { contentHash } from '../shared/changes/canonical.ts';
import type { EntityRecord } from '../shared/changes/entity-types.ts';
import { screenBody } from '../shared/connector/item-screen.ts';
import { OPERATIONS } from '../shared/connector/operations.ts';
import { interpretResponse } from '../shared/connector/response.ts';
import { OverlapMemory } from '../shared/polling/overlap-memory.ts';
import { WindowOverlap } from '../shared/polling/overlap-screen.ts';
import { computeChanges, observe } from '../shared/polling/page-changes.ts';
import { startSimulator } from '../shared/simulator/simulator.ts';
import {
  fromSnapshotItem,
  SNAPSHOT_COMPRESS_ABOVE_BYTES,
  toSnapshotItem,
} from '../shared/state/dynamodb-items.ts';
import { prepareSnapshots, type StoredSnapshot } from '../shared/state/state-store.ts';
import { formatNumber, isMain } from './figures.ts';

/** Customers judged per run (5 pages of 1,000, as a burst's windows read them). */
const RECORDS = 5_000;
const PAGE = 1_000;
const RUNS = 9;
const STREAM = 'main:customer';
const OPERATION = OPERATIONS['customers/getAll'];

/** A connector answer of one page, as the transport hands it over. */
interface RawPage {
  status: 200;
  headers: Record<string, string>;
  text: string;
}

/** Customer pages of a medium simulator (seed 5, as the burst benchmarks), each Notes updated. */
async function customerPages(): Promise<{ pages: RawPage[]; previous: EntityRecord[] }> {
  const sim = await startSimulator({ seed: 5, size: 'medium', rateLimit: false });
  try {
    const records = [...sim.controls.model.customers.all()]
      .slice(0, RECORDS)
      .map((entry) => entry.record as unknown as EntityRecord);
    const previous = records.map((record) => structuredClone(record));
    const now = new Date().toISOString();
    const pages: RawPage[] = [];
    for (let i = 0; i < records.length; i += PAGE) {
      const customers = records
        .slice(i, i + PAGE)
        .map((record) => ({ ...record, Notes: `bench ${record.Id}`, UpdatedUtc: now }));
      pages.push({
        status: 200,
        headers: { 'request-id': 'bench' },
        text: JSON.stringify({
          Customers: customers,
          Cursor: records[Math.min(i + PAGE, records.length) - 1]?.Id ?? null,
        }),
      });
    }
    return { pages, previous };
  } finally {
    await sim.close();
  }
}

/** A function's allocations in a sampled profile: its name and place, and its own bytes. */
interface Allocator {
  name: string;
  bytes: number;
}

type ProfileNode = {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
};

/**
 * Bytes `work` allocates (collected ones included), from V8's sampling heap profiler, with the
 * functions that allocate most. The session answers synchronously on the main thread.
 */
function allocations(session: Session, work: () => void): { bytes: number; top: Allocator[] } {
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  work();
  let head: ProfileNode | undefined;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) throw error;
    head = (result.profile as unknown as { head: ProfileNode }).head;
  });
  const byFunction = new Map<string, number>();
  let bytes = 0;
  const visit = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/.*\//, '')}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    bytes += node.selfSize;
    for (const child of node.children) visit(child);
  };
  if (head === undefined) throw new Error('the heap profiler returned no profile');
  visit(head);
  const top = [...byFunction]
    .map(([name, size]) => ({ name, bytes: size }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 10);
  return { bytes, top };
}

/** CPU ms of `work` (user and system time of the process). */
function cpuMs(work: () => void): number {
  const cpu = process.cpuUsage();
  work();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * A part benchmark (not in `npm run bench`): bytes allocated and CPU per record of the detection
 * steps of a burst of updated customers, in process: a page's parse and overlap screen (a re-read
 * passed over, parsed or from its text, and a first read whose fingerprints are kept), its validation, the content hashes,
 * the judging and events, the snapshots' preparing and marshalling (deflated as in AWS, and as `change-bridge start` stores them). Run with
 * `node --import tsx bench/detection-parts.ts` (`DETECTION_PARTS_DETAIL=1`: the functions
 * that allocate most in each step). CPU is the median of 9 runs; bytes (collected ones included)
 * come from V8's sampling heap profiler.
 */
export async function run(): Promise<void> {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  const detail = process.env.DETECTION_PARTS_DETAIL === '1';
  const { pages, previous } = await customerPages();
  const now = Date.now();
  const window = {
    startUtc: new Date(now - 60_000).toISOString(),
    endUtc: new Date(now + 1000).toISOString(),
    cursor: null,
    count: PAGE,
    pages: 0,
  };
  const readPage = (raw: RawPage, overlap: WindowOverlap) => {
    const screen = overlap.pageScreen();
    const body = interpretResponse(
      OPERATION.name,
      raw,
      OPERATION.response,
      now,
      (value) => screenBody(value, 'Customers', screen).body,
    ) as { Customers: EntityRecord[] };
    return { records: body.Customers, screen };
  };
  // What a first read remembers, for the re-reads.
  const memory = new OverlapMemory();
  const first = new WindowOverlap(memory, undefined, window, 5000, 'customer');
  const validated: EntityRecord[][] = [];
  for (const raw of pages) {
    const { records, screen } = readPage(raw, first);
    first.keepStored(screen);
    validated.push(records);
  }
  first.commit(STREAM, 'w');
  const recalled = memory.recall(STREAM, 'w');
  const storedItems = prepareSnapshots(
    STREAM,
    previous.map((record) => ({
      entityId: String(record.Id),
      hash: contentHash(record),
      record,
      updatedAt: now - 10_000,
    })),
  ).map((prepared) => toSnapshotItem(STREAM, prepared, SNAPSHOT_COMPRESS_ABOVE_BYTES));
  const context = {
    connectionId: 'main',
    entityType: 'customer' as const,
    scope: {},
    volatileFields: ['UpdatedUtc'],
    emitCreated: true,
    now,
  };
  let writes: StoredSnapshot[] = [];
  const store = (compressAbove: number) => {
    for (let p = 0; p < writes.length; p += PAGE) {
      for (const prepared of prepareSnapshots(STREAM, writes.slice(p, p + PAGE))) {
        marshall(toSnapshotItem(STREAM, prepared, compressAbove), { removeUndefinedValues: true });
      }
    }
  };
  const steps: Record<string, () => void> = {
    'read, first (parse, fingerprint, validate)': () => {
      const overlap = new WindowOverlap(memory, undefined, window, 5000, 'customer');
      for (const raw of pages) readPage(raw, overlap);
    },
    're-read (parse, fingerprint, passed over)': () => {
      const overlap = new WindowOverlap(memory, recalled, window, 5000, 'customer');
      for (const raw of pages) readPage(raw, overlap);
    },
    're-read from text (passed over whole)': () => {
      const overlap = new WindowOverlap(memory, recalled, window, 5000, 'customer');
      for (const raw of pages) {
        const screened = overlap.pageScreen().screenText(raw.text, 'Customers');
        if (screened === undefined) throw new Error('a re-read page was not passed over as text');
        interpretResponse(OPERATION.name, { ...raw, text: screened.text }, OPERATION.response, now);
      }
    },
    'content hash': () => {
      for (const records of validated) for (const record of records) contentHash(record);
    },
    'judge (snapshot read, hash, diff, event)': () => {
      writes = [];
      for (let p = 0; p < validated.length; p++) {
        const stored = new Map<string, StoredSnapshot>();
        for (const item of storedItems.slice(p * PAGE, (p + 1) * PAGE)) {
          const snapshot = fromSnapshotItem(item);
          stored.set(snapshot.entityId, snapshot);
        }
        const changes = computeChanges(observe('customer', validated[p]!), stored, context);
        writes.push(...changes.writes);
      }
    },
    'store (prepare, item, marshall)': () => store(SNAPSHOT_COMPRESS_ABOVE_BYTES),
    // `change-bridge start` (shared/local/runtime.ts) stores records undeflated.
    'store, as start does (no deflate)': () => store(Number.POSITIVE_INFINITY),
  };
  for (const [name, work] of Object.entries(steps)) {
    work();
    const micros = (median(Array.from({ length: RUNS }, () => cpuMs(work))) * 1000) / RECORDS;
    const sampled = Array.from({ length: 3 }, () => allocations(session, work));
    const bytes = median(sampled.map((s) => s.bytes)) / RECORDS;
    console.log(
      `${name.padEnd(44)} ${formatNumber(bytes / 1024, 1).padStart(7)} KB ${formatNumber(micros, 1).padStart(7)} µs per record`,
    );
    if (detail)
      for (const { name: where, bytes: own } of sampled[0]!.top)
        console.log(`    ${formatNumber(own / RECORDS / 1024, 2).padStart(7)} KB ${where}`);
  }
  session.disconnect();
}

if (isMain(import.meta.url)) await run();
