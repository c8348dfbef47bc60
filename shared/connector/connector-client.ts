import {
  type CallOptions,
  type ConnectorCaller,
  type ConnectorClientDeps,
  createConnectorCaller,
} from './client.ts';
import type { ConnectorConfig } from './connector-config.ts';
import {
  OPERATION_NAMES,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  type PaginatedOperationName,
} from './operations.ts';
import { type Page, type PaginateOptions, paginate } from './paginate.ts';

type EntityOf<N> = N extends `${infer E}/${string}` ? E : never;
type MethodsOf<E extends string> = {
  [N in OperationName as N extends `${E}/${infer O}` ? O : never]: (
    body: OperationRequest<N>,
    options?: CallOptions,
  ) => Promise<OperationResponse<N>>;
};

/** One typed method per operation, grouped by entity: `client.customers.getAll(body)`. */
export type ConnectorApi = { [E in EntityOf<OperationName>]: MethodsOf<E> };

/** The Connector API client: typed methods, raw calls and pagination. */
export type ConnectorClient = ConnectorApi &
  ConnectorCaller & {
    /** Walks every page of a paginated operation (see {@link paginate}). */
    paginate<N extends PaginatedOperationName>(
      name: N,
      body: OperationRequest<N>,
      options?: PaginateOptions,
    ): AsyncGenerator<Page<N>, void, undefined>;
  };

/**
 * Creates a client for one connection.
 * @example
 * const client = createConnectorClient({ baseUrl, clientToken, accessToken, client: 'me 1.0' });
 * const { Customers } = await client.customers.getAll({ Limitation: { Count: 100 }, Extent: { Customers: true }, UpdatedUtc: { StartUtc, EndUtc } });
 */
export function createConnectorClient(
  config: ConnectorConfig,
  deps: ConnectorClientDeps = {},
): ConnectorClient {
  const caller = createConnectorCaller(config, deps);
  const api: Record<string, Record<string, unknown>> = {};
  for (const name of OPERATION_NAMES) {
    const [entity, operation] = name.split('/') as [string, string];
    api[entity] ??= {};
    api[entity][operation] = (body: OperationRequest<typeof name>, options?: CallOptions) =>
      caller.call(name, body, options);
  }
  return Object.assign(api as ConnectorApi, caller, {
    paginate: <N extends PaginatedOperationName>(
      name: N,
      body: OperationRequest<N>,
      options?: PaginateOptions,
    ) => paginate(caller, name, body, options),
  });
}
