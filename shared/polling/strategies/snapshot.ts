import type { EntityRecord } from '../../changes/entity-types.ts';
import { isOperationName, OPERATIONS } from '../../connector/operations.ts';
import { BridgeError } from '../../errors.ts';
import { listingJudging, listingPassDone } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  callOptions,
  emitsCreated,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  syncCompleted,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type SnapshotPollSpec } from '../poll-spec.ts';
import { allRecords, callForRecords } from './paged-records.ts';

async function listAll(
  definition: StreamDefinition,
  spec: SnapshotPollSpec,
  deps: PollDeps,
): Promise<EntityRecord[]> {
  if (!isOperationName(spec.operation))
    throw new BridgeError(`unknown operation ${spec.operation}`);
  const operation = OPERATIONS[spec.operation];
  if (operation.pagination) {
    return allRecords(
      deps.client,
      spec.operation as never,
      spec.request(PAGE_COUNT_MAX),
      callOptions(deps, definition, 'live'),
    );
  }
  return callForRecords(
    deps.client,
    spec.operation,
    spec.request(PAGE_COUNT_MAX),
    spec.itemsKey,
    callOptions(deps, definition, 'live'),
  );
}

/**
 * Snapshot diff for operations without a time filter (billing automations, tax environments):
 * list everything, diff each record, and treat stored live records that are no longer listed
 * as deleted.
 */
export async function runSnapshot(
  definition: StreamDefinition,
  spec: SnapshotPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<number> {
  const records = await listAll(definition, spec, deps);
  const observations: Observation[] = observe(spec.entityType, records);
  const listed = new Set(observations.map((o) => o.entityId));
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId)) {
    for (const snapshot of snapshots) {
      if (!snapshot.deleted && !listed.has(snapshot.entityId))
        observations.push({ entityId: snapshot.entityId, record: null });
    }
  }
  const emitCreated = emitsCreated(definition, state.current);
  const changes = await commitObservations(definition, deps, observations, emitCreated, {
    backfill: listingJudging(state.current),
  });
  const now = deps.clock.now();
  // The poll's success save follows at once and writes it (one write per poll).
  state.stage({
    watermark: new Date(now).toISOString(),
    ...syncCompleted(state.current, { records: records.length, events: changes.published }, now),
    ...listingPassDone(state.current, { records: records.length, events: changes.published }, now),
  });
  return changes.events.length;
}
