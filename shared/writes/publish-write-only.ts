import type { EntityRecord } from '../changes/entity-types.ts';
import {
  VERSIONED_WRITES,
  type WriteOnlyOperation,
  writeOnlyChanges,
  writeOnlyScope,
  writeOnlySubjects,
} from './events-of-write.ts';
import { writeContext } from './write-context.ts';
import type { WriteThroughOptions } from './write-through-options.ts';
import { writeOnlyStreamId } from './written-events.ts';

/**
 * Keeps each subject's version of a write-only operation's events (see buildWrittenEvent),
 * then publishes them: each id is told apart from the subject's earlier events, and a repeat
 * of the same result gets the same id again. An event kept but not published (the publish
 * failed, and is reported) is sent with that same id by the next write of that result.
 */
export async function publishWriteOnly(
  options: WriteThroughOptions,
  operation: WriteOnlyOperation,
  request: EntityRecord,
  response: unknown,
): Promise<number> {
  const versioned =
    operation === 'vouchers/add'
      ? undefined
      : {
          streamId: writeOnlyStreamId(options.connectionId, VERSIONED_WRITES[operation]),
          subjects: writeOnlySubjects(operation, request),
        };
  const versions =
    versioned && (await options.state.getSnapshots(versioned.streamId, versioned.subjects));
  // A voucher names no enterprise: a Portfolio Access Token's request says which it is.
  const scope = writeOnlyScope(
    operation,
    request,
    options.scope,
    options.connector.portfolioScope !== undefined,
  );
  const written = writeOnlyChanges(
    { ...writeContext(options), scope, ...(versions ? { versions } : {}) },
    operation,
    request,
    response,
  );
  if (written.length === 0) return 0;
  if (versioned)
    await options.state.putSnapshots(
      versioned.streamId,
      written.map((w) => w.version),
    );
  await options.publisher.publish(written.map((w) => w.event));
  return written.length;
}
