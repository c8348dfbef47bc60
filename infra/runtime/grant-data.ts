import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ChangeBridgeState } from '../stateful.ts';
import {
  denySubscriptionItems,
  grantListRules,
  grantSend,
  grantTableItems,
} from './resource-grants.ts';

/** The four functions of the runtime, by their role. */
export interface BridgeFunctions {
  planner: NodejsFunction;
  poller: NodejsFunction;
  dispatcher: NodejsFunction;
  adminFunction: NodejsFunction;
}

/** Least privilege: each function gets the actions its job needs, on our resources only. */
export function grantData(functions: BridgeFunctions, state: ChangeBridgeState): void {
  const { planner, poller, dispatcher, adminFunction } = functions;
  const { table, bus, pollJobQueue, dispatchQueue, bulkDispatchQueue, eventsQueue } = state;

  // Planner: reads connections by page and stream states, enqueues one job per connection;
  // it writes nothing and never opens a token.
  grantTableItems(planner, table, 'read');
  grantSend(pollJobQueue, planner);

  // Poller: leases, snapshots and watermarks; publishes (the dispatch queue, the bus
  // behind its rules, the events queue); reads the credentials. It sends no poll job: a
  // window cut off by its timeout resumes from the cursor saved in the table.
  grantTableItems(poller, table, 'readWrite');
  grantSend(dispatchQueue, poller);
  grantSend(bulkDispatchQueue, poller);
  bus.grantPutEventsTo(poller);
  grantListRules(poller);
  grantSend(eventsQueue, poller);
  for (const secret of state.connectionSecrets.values()) secret.grantRead(poller);
  // Stored connections: the deployment's endpoint and ClientToken, and their sealed tokens.
  state.deploymentSecret.grantRead(poller);
  state.connectionTokenKey.grantDecrypt(poller);

  // Neither reads a subscription: their grants stop short of the signing secrets.
  denySubscriptionItems(planner, table);
  denySubscriptionItems(poller, table);

  // Dispatcher: subscriptions and delivery log; re-enqueues retries on its own queues (a
  // backfill's on the bulk one); publishes operational events (subscription.disabled,
  // delivery.failing).
  grantTableItems(dispatcher, table, 'readWrite');
  grantSend(dispatchQueue, dispatcher);
  grantSend(bulkDispatchQueue, dispatcher);
  grantSend(state.dispatchRetryQueue, dispatcher);
  bus.grantPutEventsTo(dispatcher);

  // Admin API: manages subscriptions and streams, replays events, starts backfills (state the
  // planner picks up: it sends no poll job); its connector proxy writes with the connection's
  // credentials and publishes like the poller.
  grantTableItems(adminFunction, table, 'readWrite');
  grantSend(dispatchQueue, adminFunction);
  grantSend(state.dispatchRetryQueue, adminFunction);
  grantSend(bulkDispatchQueue, adminFunction);
  bus.grantPutEventsTo(adminFunction);
  grantListRules(adminFunction);
  grantSend(eventsQueue, adminFunction);
  for (const secret of state.connectionSecrets.values()) secret.grantRead(adminFunction);
  // Its proxy writes through stored connections too: their endpoint and ClientToken.
  state.deploymentSecret.grantRead(adminFunction);
  // `connections add` seals a token under a new data key (GenerateDataKey); README lets the
  // admin API open one too (Decrypt): the two calls of KmsDataKeyProvider, nothing more.
  state.connectionTokenKey.grant(adminFunction, 'kms:GenerateDataKey', 'kms:Decrypt');
}
