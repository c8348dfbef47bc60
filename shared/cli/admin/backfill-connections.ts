import { ConnectionViewSchema } from '../../admin/schemas.ts';
import { splitCommaList } from '../../comma-list.ts';
import { ConnectionIdSchema } from '../../connections/connection.ts';
import { CliExit, EXIT_FAILURE } from '../exit-codes.ts';
import type { AdminApiClient } from './api-client.ts';
import { segment } from './output.ts';

/**
 * After `POST /backfill` refused `--connection ids` as invalid input ("x is no enabled
 * connection", which says the same of one that does not exist and one disabled): exits 1 as
 * every other command given such an id does, with the API's `connection x does not exist`
 * (404), or saying the connection is disabled and how to enable it (as a replay to a disabled
 * subscription exits 1). Returns when every well-formed id names an enabled connection: the
 * refusal was about something else, and stands; so does a refusal of input holding a malformed id
 * (an empty item included), before any id is looked up.
 * @throws CliExit(1) for the first id that names no connection, or a disabled one.
 * @example await refuseUnbackfillableConnections(client, 'main,other') // exits 1: connection other does not exist
 */
export async function refuseUnbackfillableConnections(
  client: AdminApiClient,
  connectionList: string,
): Promise<void> {
  const ids = splitCommaList(connectionList);
  // A malformed id (an empty item too) was refused as such before anything was sent: that
  // refusal (exit 2) stands, whatever the ids before it name.
  if (!ids.every((id) => ConnectionIdSchema.safeParse(id).success)) return;
  for (const id of ids) {
    const connection = await client.call(
      'GET',
      `/connections/${segment(id, '--connection')}`,
      ConnectionViewSchema,
    );
    if (!connection.enabled) {
      throw new CliExit(
        EXIT_FAILURE,
        `--connection: connection ${id} is disabled: \`change-bridge connections enable ${id}\` first, then backfill it`,
      );
    }
  }
}
