import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { BridgeError } from '../errors.ts';

/** DynamoDB errors that repeating the same request cannot fix. */
const PERMANENT_ERROR_NAMES = new Set([
  'ValidationException',
  'ResourceNotFoundException',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'SerializationException',
]);

/** Throttling errors: client faults in the SDK's terms, yet repeating later succeeds. */
const THROTTLE_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/**
 * Turns a failure of a DynamoDB request (after the SDK's own retries) into a BridgeError
 * naming the operation and table. Retryable: server faults, throttling and network errors;
 * not retryable: a wrong request, a missing table, denied access. BridgeErrors pass as they are.
 */
export function toStoreError(tableName: string, operation: string, error: unknown): BridgeError {
  if (error instanceof BridgeError) return error;
  const name = error instanceof Error ? error.name : 'UnknownError';
  const message = error instanceof Error ? error.message : String(error);
  const retryable =
    !PERMANENT_ERROR_NAMES.has(name) &&
    (!(error instanceof DynamoDBServiceException) ||
      error.$fault === 'server' ||
      THROTTLE_ERROR_NAMES.has(name));
  return new BridgeError(
    `DynamoDB ${operation} on table ${tableName} failed: ${name}: ${message}`,
    {
      cause: error,
      retryable,
    },
  );
}

/**
 * Runs one DynamoDB request, mapping its failure with {@link toStoreError}.
 * @example await withStoreErrors('state', 'GetItem', () => client.send(command))
 */
export async function withStoreErrors<T>(
  tableName: string,
  operation: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStoreError(tableName, operation, error);
  }
}
