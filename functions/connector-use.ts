import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BRIDGE_METRICS } from '../infra/metric-names.ts';
import type { BudgetView } from '../shared/connector/budget/budget-types.ts';
import type { OperationName } from '../shared/connector/operations.ts';

/** HTTP status of the Connector API's answer when the token's budget is spent (design.md). */
const TOO_MANY_REQUESTS = 429;

/** What the connector clients of a poll job asked and how the server answered. */
export interface ConnectorUse {
  /** Requests sent (every attempt, retries included). */
  requests: number;
  /** Answers of 429: the server counted the token's budget spent. */
  throttled: number;
}

/**
 * Counts the connector requests of the clients it is the `onRequest` of, until {@link take}.
 * One invocation runs at a time in a Lambda container, so a tally per container is one per job.
 * @example const tally = new ConnectorRequestTally(); createConnectorClient(config, { onRequest: tally.onRequest })
 */
export class ConnectorRequestTally {
  private use: ConnectorUse = { requests: 0, throttled: 0 };

  /** The client's hook: one call per request sent, with its status (or `network`). */
  readonly onRequest = (_operation: OperationName, status: number | 'network'): void => {
    this.use.requests += 1;
    if (status === TOO_MANY_REQUESTS) this.use.throttled += 1;
  };

  /** The counts since the last take, and a fresh start. */
  take(): ConnectorUse {
    const use = this.use;
    this.use = { requests: 0, throttled: 0 };
    return use;
  }
}

/**
 * Counts a poll job's connector use in the metrics the dashboard and the alarm read:
 * `ConnectorRequests`, `ConnectorThrottled` (429s: the server saw the token's budget spent,
 * which the shared budget and its margin are there to prevent) and, when the job's client keeps
 * a budget, `ConnectorBudgetUsedPercent` (requests in the token's sliding window ÷ the limit
 * granted, as the shared ledger counted them at the job's last grant). No per-connection
 * dimension: 10,000 connections would be 10,000 custom metrics. The caller flushes the metrics.
 * @example reportConnectorUse(tally.take(), connection.client.budgetView(), metrics)
 */
export function reportConnectorUse(
  use: ConnectorUse,
  budget: BudgetView | undefined,
  metrics: Metrics,
): void {
  metrics.addMetric(BRIDGE_METRICS.connectorRequests, MetricUnit.Count, use.requests);
  metrics.addMetric(BRIDGE_METRICS.connectorThrottled, MetricUnit.Count, use.throttled);
  if (budget && budget.limit > 0)
    metrics.addMetric(
      BRIDGE_METRICS.connectorBudgetUsedPercent,
      MetricUnit.Percent,
      Math.min(100, (100 * budget.requestsInWindow) / budget.limit),
    );
}
