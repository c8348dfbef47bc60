import { z } from 'zod';
import type { AdminApiClient } from './api-client.ts';
import { segment } from './output.ts';

/** What a list filter can name, and the admin API route that reads one. */
const TARGET_PATHS = {
  subscription: '/subscriptions',
  event: '/events',
  connection: '/connections',
} as const;

/**
 * After a list filtered by `id` came back empty: exits 1 with the API's own 404 message
 * (`subscription sub_x does not exist`) when `id` names no such thing, as `show`, `remove`
 * and `replay --subscription` do, rather than saying "no deliveries" with exit 0 to a
 * misspelt id. An id that names something (or names a removed one whose deliveries or streams
 * are kept: the list was not empty, so this is not asked) returns.
 * @throws CliExit(1) for an unknown id; CliExit(2) naming `flag` for an id no route can take.
 * @example await requireFilterTarget(client, 'subscription', 'sub_x', '--subscription')
 */
export async function requireFilterTarget(
  client: AdminApiClient,
  kind: keyof typeof TARGET_PATHS,
  id: string,
  flag: string,
): Promise<void> {
  await client.call('GET', `${TARGET_PATHS[kind]}/${segment(id, flag)}`, z.unknown());
}
