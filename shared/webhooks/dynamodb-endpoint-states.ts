import { parseOrThrow } from '../errors.ts';
import type { WebhookTable } from './dynamodb-table-access.ts';
import { type EndpointState, EndpointStateSchema } from './store.ts';

/** The stored state of the subscription's endpoint (ENDPOINT#<subId> STATE), if there is one. */
export function readEndpointState(
  table: WebhookTable,
  subscriptionId: string,
): Promise<EndpointState | undefined> {
  return table.getDoc(`ENDPOINT#${subscriptionId}`, 'STATE', EndpointStateSchema, 'endpoint state');
}

/**
 * Writes the endpoint's state if the stored one is still at `ifVersion` (undefined: none is
 * stored, or one written before versions); the state as stored, or undefined when another
 * write came first (WebhookStore.putEndpointState's contract).
 */
export async function writeEndpointState(
  table: WebhookTable,
  state: EndpointState,
  options: { ifVersion: number | undefined },
): Promise<EndpointState | undefined> {
  const { ifVersion } = options;
  const stored = { ...state, version: (ifVersion ?? 0) + 1 };
  // A state never written, or written before versions, has no `doc.version`.
  const written = await table.tryPut(
    { pk: `ENDPOINT#${state.subscriptionId}`, sk: 'STATE', doc: stored },
    ifVersion === undefined ? 'attribute_not_exists(doc.version)' : 'doc.version = :version',
    ifVersion === undefined ? undefined : { ':version': ifVersion },
  );
  return written ? stored : undefined;
}

/**
 * The stored states of the subscriptions' endpoints, by subscription id (none for those without
 * one), read 100 keys a BatchGetItem, eventually consistent: what a health display reads.
 */
export async function readEndpointStates(
  table: WebhookTable,
  subscriptionIds: readonly string[],
): Promise<Map<string, EndpointState>> {
  const items = await table.batchGetItems(
    [...new Set(subscriptionIds)].map((id) => ({ pk: `ENDPOINT#${id}`, sk: 'STATE' })),
  );
  return new Map(
    items.map((item) => [
      String(item.pk).slice('ENDPOINT#'.length),
      parseOrThrow(EndpointStateSchema, item.doc, 'endpoint state'),
    ]),
  );
}
