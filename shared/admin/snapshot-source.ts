import type { StreamDefinition } from '../polling/poll-context.ts';
import type { StateStore } from '../state/state-store.ts';
import type { SnapshotRecord, SnapshotSource } from '../webhooks/delivery-admin.ts';

/**
 * The resync {@link SnapshotSource} over the state store: for an entity type, the stored
 * snapshots of every configured stream of that type, page by page (never all held), without
 * tombstones (a deleted entity has no current state to send).
 * @example await webhooks.resync(subscriptionId, ['customer'], stateSnapshotSource(store, streams))
 */
export function stateSnapshotSource(
  store: StateStore,
  streams: readonly StreamDefinition[],
): SnapshotSource {
  return {
    async *list(entityType: string): AsyncIterable<SnapshotRecord> {
      for (const stream of streams) {
        if (stream.spec.entityType !== entityType) continue;
        for await (const page of store.scanSnapshots(stream.streamId)) {
          for (const snapshot of page) {
            if (snapshot.deleted) continue;
            yield {
              entityId: snapshot.entityId,
              record: snapshot.record,
              ...(snapshot.scope ? { scope: snapshot.scope } : {}),
              connectionId: stream.connectionId,
            };
          }
        }
      }
    },
  };
}
