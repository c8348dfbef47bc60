import { entityIdOf } from '../../changes/entity-types.ts';
import { isSoftDeleted } from '../../changes/event.ts';
import { anySignal, readAhead } from '../../concurrency.ts';
import type { BudgetPriority } from '../../connector/budget/budget-types.ts';
import { ConnectorError } from '../../connector/errors.ts';
import type { SetAsideRecord } from '../../connector/response.ts';
import type { StreamWindow } from '../../state/state-store.ts';
import type { BackfillJudging } from '../backfill-state.ts';
import { publishObservations, storeChanges } from '../commit-changes.ts';
import type { WindowOverlap } from '../overlap-screen.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  callOptions,
  type PageCounts,
  type PollDeps,
  type StreamDefinition,
} from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import type { RecordGrant } from '../record-budget.ts';
import { budgetedPages, pageRecords, type RecordPage } from './paged-records.ts';

/** How one window is read: what judges its records and where its progress goes. */
export interface WindowReading {
  emitCreated: boolean;
  priority: BudgetPriority;
  /** A backfill judging the records (see ChangeContext.backfill). */
  backfill?: BackfillJudging;
  /** Whether a record's snapshot must be read (default always). */
  needsRead?: (observation: Observation) => boolean;
  /** Snapshots stored before this epoch ms are judged as absent (see PublishObservationsOptions). */
  storedSince?: number | undefined;
  /** What this process remembers of the window's overlap, for the live reads. */
  overlap?: WindowOverlap | undefined;
  /** Saves the cursor of the next page with the counts of the page stored before it. */
  savePage(next: StreamWindow, counts: PageCounts): Promise<void>;
  /** Asked after each page but the last: true stops the window there (its cursor is saved). */
  stopAfterPage(): Promise<boolean>;
  /** Asked as each page arrives, with it: false reads no page ahead (a caller about to stop). */
  ahead?: (page: RecordPage) => boolean;
  /** Aborts a page's wait for the budgets (never a request sent): the caller's time is over. */
  waitSignal?: AbortSignal;
  /** Run before a page's events are published (see PublishObservationsOptions.beforePublish). */
  beforePublish?: (() => Promise<void>) | undefined;
}

/** What reading a window did. */
export interface WindowRead {
  /** The last page was read: the window is done. */
  finished: boolean;
  /** Records read (passed over and set aside included). */
  records: number;
  /** The last page's counts, which no cursor save carried: they go with the watermark. */
  lastPage: PageCounts;
}

/**
 * Asks the connector which of `ids` are deleted, for operations whose deleted records carry no
 * flag (the spec's `deletedAmong`); undefined for the others. The request returns only deleted
 * records, so one that breaks its schema (set aside) is deleted all the same by its Id, which
 * must be one of `ids`: one without an Id, or with another, fails the classification, as which
 * record it stands for cannot be told (read as live, a deleted one would be published as changed).
 */
export function deletedClassifier(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  priority: BudgetPriority,
): ((ids: readonly string[]) => Promise<ReadonlySet<string>>) | undefined {
  const deletedAmong = spec.deletedAmong;
  if (!deletedAmong) return undefined;
  return async (ids) => {
    const asked = new Set(ids);
    const deleted = new Set<string>();
    for await (const page of pageRecords(
      deps.client,
      spec.operation,
      deletedAmong(ids, deps.pageCount),
      { ...callOptions(deps, definition, priority), setAside: true },
    )) {
      for (const record of page.records) deleted.add(entityIdOf(spec.entityType, record));
      for (const record of page.setAside ?? []) {
        if (record.recordId === undefined || !asked.has(record.recordId)) {
          throw new ConnectorError(record.error, {
            category: 'response',
            operation: spec.operation,
            details: { path: record.path },
          });
        }
        deleted.add(record.recordId);
      }
    }
    return deleted;
  };
}

/**
 * The page's observations: its records, and each record set aside whose `Id` is known and that
 * reads as deleted, as deleted: by its own delete flag (`IsActive` false, or an `ActivityState`
 * of Deleted, checked by hand on the record as sent), or, for an operation whose deleted records
 * carry no flag (loyalty memberships), by `classify` (one more request, only for a page that set
 * records aside). Whatever else of it broke, its deletion is not in doubt, and it is judged
 * against the stored snapshot (whose record its event and tombstone carry): set aside, it would
 * never be published, as a deleted record does not change again and a stream without a sweep
 * (customers, loyalty memberships) learns of deletes from its windows alone.
 */
async function pageObservations(
  entityType: WindowedPollSpec['entityType'],
  page: RecordPage,
  classify: ((ids: readonly string[]) => Promise<ReadonlySet<string>>) | undefined,
): Promise<Observation[]> {
  const observations = observe(entityType, page.records);
  const read = new Set(observations.map((o) => o.entityId));
  const candidates = (page.setAside ?? []).filter(
    (record): record is SetAsideRecord & Required<Pick<SetAsideRecord, 'recordId' | 'sent'>> =>
      record.recordId !== undefined && record.sent !== undefined && !read.has(record.recordId),
  );
  if (candidates.length === 0) return observations;
  const flagged = candidates.filter(({ sent }) => isSoftDeleted(sent));
  const unflagged = candidates.filter(({ sent }) => !isSoftDeleted(sent));
  const classified =
    classify && unflagged.length > 0
      ? await classify(unflagged.map(({ recordId }) => recordId))
      : new Set<string>();
  const deleted = [...flagged, ...unflagged.filter(({ recordId }) => classified.has(recordId))];
  for (const { recordId, sent } of deleted) {
    if (read.has(recordId)) continue;
    read.add(recordId);
    observations.push({ entityId: recordId, record: sent, deleted: true });
  }
  return observations;
}

/**
 * Pages through one window from its cursor: each page is diffed and published, then stored
 * (snapshots, then the next page's cursor through {@link WindowReading.savePage}) while the
 * next page is fetched, diffed and published. Its events go out before the previous page's
 * snapshots land, which the flow allows: the cursor saved is always that of a page fully
 * published and stored (design.md, Windows). A cursor the connector refuses (400: the record
 * it names was deleted for good since, an "invalid resource identifier"), whether saved by an
 * earlier run or returned by the page before, would fail the window (at every poll, for a saved
 * one): the window is read again from its newest page instead, once, which judges the records
 * already read as unchanged.
 */
export async function readWindow(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  window: StreamWindow,
  reading: WindowReading,
): Promise<WindowRead> {
  const progress: WindowProgress = {};
  try {
    return await readWindowPages(definition, spec, deps, window, reading, progress);
  } catch (error) {
    if (progress.refusedCursor === undefined || error !== progress.refusedCursor) throw error;
    return readWindowPages(
      definition,
      spec,
      deps,
      { ...window, cursor: null, pages: 0 },
      reading,
      {},
    );
  }
}

/** What a window's walk noted of its page requests. */
interface WindowProgress {
  /** The 400 answer to a page asked with a Cursor: the cursor was refused. */
  refusedCursor?: ConnectorError;
}

/**
 * The pages of `source`, noting in `progress` a 400 answer to a page asked with a Cursor (the
 * saved one, or the Cursor of the page before). The rest of that request is the one the walk's
 * first page was asked with, so the Cursor is what the connector refused.
 */
async function* notingRefusedCursor<P extends RecordPage>(
  source: AsyncIterable<P>,
  firstCursor: string | null,
  progress: WindowProgress,
): AsyncGenerator<P, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let cursor = firstCursor;
  try {
    for (;;) {
      let result: IteratorResult<P>;
      try {
        result = await iterator.next();
      } catch (error) {
        if (cursor !== null && error instanceof ConnectorError && error.status === 400)
          progress.refusedCursor = error;
        throw error;
      }
      if (result.done) return;
      cursor = result.value.last ? null : result.value.cursor;
      yield result.value;
    }
  } finally {
    await iterator.return?.();
  }
}

async function readWindowPages(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  window: StreamWindow,
  reading: WindowReading,
  progress: WindowProgress,
): Promise<WindowRead> {
  const { priority } = reading;
  const classify = deletedClassifier(definition, spec, deps, priority);
  const body = spec.windowRequest(window, window.count);
  if (window.cursor !== null)
    body.Limitation = { ...(body.Limitation as object), Cursor: window.cursor };
  const read: WindowRead = { finished: false, records: 0, lastPage: { records: 0, events: 0 } };
  let storing: Promise<void> = Promise.resolve();
  let current: StreamWindow = window;
  const grants = new Set<RecordGrant>();
  /** What ends each page's hold on bulkPages: a page that fails before it is stored ends it here. */
  const heldPages = new Set<() => void>();
  const { overlap } = reading;
  const { waitSignal } = reading;
  const claimSignal = anySignal(deps.signal, waitSignal);
  const pages = budgetedPages(
    notingRefusedCursor(
      pageRecords(deps.client, spec.operation, body, {
        ...callOptions(deps, definition, priority),
        ...(waitSignal ? { waitSignal } : {}),
        ...(overlap ? { screens: () => overlap.pageScreen() } : {}),
        // A record that breaks its schema is left out; the page's others are judged as usual.
        setAside: true,
      }),
      window.cursor,
      progress,
    ),
    {
      budget: deps.records,
      streamId: definition.streamId,
      entityType: spec.entityType,
      requested: window.count,
      ...(claimSignal ? { signal: claimSignal } : {}),
      grants,
    },
  );
  try {
    for await (const page of readAhead(pages, reading.ahead ? { ahead: reading.ahead } : {})) {
      const pageDone = priority === 'bulk' ? deps.bulkPages?.begin() : undefined;
      if (pageDone) heldPages.add(pageDone);
      const changes = await publishObservations(
        definition,
        deps,
        await pageObservations(spec.entityType, page, classify),
        reading.emitCreated,
        {
          ...(classify ? { classify } : {}),
          ...(reading.needsRead ? { needsRead: reading.needsRead } : {}),
          ...(reading.storedSince === undefined ? {} : { storedSince: reading.storedSince }),
          lane: priority,
          backfill: reading.backfill,
          beforePublish: reading.beforePublish,
          // The window is read again after a failure, and a record changed since in a later one.
          keepUnconfirmed: true,
        },
      );
      try {
        await storing;
      } catch (error) {
        // This page's snapshots will not be stored now: its hold on proxied writes ends.
        changes.storeGuard?.end();
        throw error;
      }
      const setAside = page.setAside ?? [];
      const records = page.records.length + page.passedOver + setAside.length;
      read.records += records;
      const next: StreamWindow | undefined = page.last
        ? undefined
        : { ...current, cursor: page.cursor, count: page.count, pages: current.pages + 1 };
      const counts: PageCounts = {
        records,
        events: changes.published,
        ...(changes.announced ? { announced: changes.announced } : {}),
        ...(setAside.length > 0
          ? {
              setAside: {
                records: setAside.length,
                error: setAside.at(-1)?.error ?? '',
                at: deps.clock.now(),
              },
            }
          : {}),
      };
      storing = storeChanges(definition, deps, changes)
        .then(async () => {
          overlap?.keepStored(page.screen);
          if (next) await reading.savePage(next, counts);
        })
        .finally(() => {
          page.grant?.release();
          pageDone?.();
          if (pageDone) heldPages.delete(pageDone);
        });
      // Awaited before the next page or at the end; until then, a failure must not count as
      // an unhandled rejection (which would end the process).
      storing.catch(() => undefined);
      if (!next) {
        read.finished = true;
        read.lastPage = counts;
        break;
      }
      current = next;
      if (await reading.stopAfterPage()) break;
    }
  } finally {
    try {
      await storing;
    } finally {
      // Claims of pages that were not stored: a failure, or the page read ahead and dropped.
      for (const grant of grants) grant.release();
      for (const pageDone of heldPages) pageDone();
    }
  }
  return read;
}
