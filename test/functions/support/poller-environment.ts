import { LOCAL_CREDENTIALS } from '../../../shared/local/local-credentials.ts';

/**
 * The variables a poller handler test runs with: AWS's region, the local store's endpoint and
 * the credentials it answers to, the state table, the poll-job queue and Powertools' names,
 * then `variables` of the test's own (connections, secrets, entities).
 * @example setEnvironment(pollerEnvironment(dynamo.endpoint, 'my-table', { POLL_ENTITIES: 'customer' }))
 */
export function pollerEnvironment(
  dynamoEndpoint: string,
  table: string,
  variables: Record<string, string>,
): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    // What the local store answers to (the poller's DynamoDB client reads these).
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    STATE_TABLE_NAME: table,
    POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
    POWERTOOLS_METRICS_NAMESPACE: 'ChangeBridge',
    POWERTOOLS_SERVICE_NAME: 'poller',
    ...variables,
  };
}

/**
 * Sets `variables` in `process.env` and returns what puts the environment back as it was
 * (variables it added removed, those it changed restored): the suite's files share a process.
 */
export function setEnvironment(variables: Record<string, string>): () => void {
  const saved = { ...process.env };
  Object.assign(process.env, variables);
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}
