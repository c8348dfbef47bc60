import { DEFAULT_VOLATILE_FIELDS } from '../changes/canonical.ts';
import type { EntityRecord } from '../changes/entity-types.ts';
import { BridgeError, describeThrown } from '../errors.ts';
import { liveJudging } from '../polling/backfill-state.ts';
import { storeGuarded } from '../polling/guarded-snapshots.ts';
import { WRITE_WAITS_FOR_PAGES_MS } from '../polling/snapshot-write-gate.ts';
import { takeUnconfirmed, withUnconfirmed } from '../polling/unconfirmed-events.ts';
import { POLLED_WRITES, polledRecords, polledWriteChanges } from './events-of-write.ts';
import { writeContext } from './write-context.ts';
import type { WriteThroughOptions } from './write-through-options.ts';

/**
 * Publishes the events of a polled entity's write (`customers/update`, `paymentRequests/add`)
 * as a live poll of its stream would judge them now, then stores the snapshots only over those
 * it read (a poll of the stream may store the same entities meanwhile), and counts them in the
 * stream's running backfill job. Returns the events published.
 * @throws BridgeError when the events were published but not counted in the job
 */
export async function publishPolledWrite(
  options: WriteThroughOptions,
  operation: 'customers/update' | 'paymentRequests/add',
  request: EntityRecord,
  response: unknown,
  answerDue: number,
): Promise<number> {
  const entityType = POLLED_WRITES[operation];
  const stream = options.streams.find(
    (s) => s.connectionId === options.connectionId && s.spec.entityType === entityType,
  );
  const streamId = stream?.streamId ?? `${options.connectionId}:${entityType}`;
  // Live pages of the stream in flight in this process store first (those it stops waiting
  // for, when the answer falls due, store with conditions); later ones are guarded.
  const endWrite = await options.snapshotGate?.openWrite(
    streamId,
    Math.min(WRITE_WAITS_FOR_PAGES_MS, Math.max(0, answerDue - options.clock.now())),
  );
  try {
    const records = polledRecords(operation, response);
    const ids = records.map((record) => String(record.Id));
    const volatileFields = stream?.spec.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
    const stored = await options.state.getSnapshots(streamId, ids);
    // Judged as a live poll of the stream would judge it now: a backfill that emits and has
    // not read the entity yet gets its `created` first (the write moves it past the pass).
    const streamState = await options.state.getStream(streamId);
    const now = options.clock.now();
    const backfill = streamState
      ? liveJudging(streamState, { startUtc: new Date(now).toISOString() })
      : undefined;
    // Events a poll's failed publish may have put out in part go first, as a poll sends
    // them, and the write is judged from their `current` (see unconfirmed-events.ts).
    const taken = takeUnconfirmed(
      stored,
      records.map((record, i) => ({ entityId: ids[i]!, record })),
    );
    const changes = withUnconfirmed(
      polledWriteChanges({
        context: writeContext(options),
        entityType,
        volatileFields,
        records,
        stored: taken.judged,
        request,
        backfill,
      }),
      taken,
    );
    if (changes.events.length > 0) await options.publisher.publish(changes.events);
    // A poll of the stream may store the same entities meanwhile: only over what was read.
    const corrections = await storeGuarded({
      store: options.state,
      streamId,
      connectionId: options.connectionId,
      entityType,
      scope: options.scope,
      volatileFields,
      read: stored,
      writes: changes.writes,
      published: new Set(changes.events.map((event) => event.subject)),
      publishedAt: options.clock.now(),
      now: options.clock.now(),
      publish: async (events) => {
        await options.publisher.publish(events);
      },
    });
    const published = changes.events.length + corrections;
    // The job waits for the deliveries of every event of its streams detected while it runs.
    // (A stream reset's first sync names no job: `reset_…`, not `bf_…`.)
    const jobId = streamState?.backfill?.jobId;
    if (published > 0 && jobId?.startsWith('bf_') && options.backfills)
      await options.backfills
        .addWritten(jobId, streamId, { events: published, announced: changes.announced ?? 0 })
        .catch((error: unknown) => {
          throw new BridgeError(
            `events published, but not counted in backfill ${jobId}: ${describeThrown(error)}`,
            { cause: error },
          );
        });
    return published;
  } finally {
    endWrite?.();
  }
}
