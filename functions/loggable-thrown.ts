import { describeThrown } from '../shared/errors.ts';

/**
 * What a Lambda logs as `error` for a thrown value: an Error as it is (the Powertools Logger
 * prints its name, message and stack), anything else as {@link describeThrown}'s text. The
 * Logger prints a plain object field by field, and a thrown object may hold a token; an
 * `undefined` would drop the field from the line altogether.
 * @example logger.error('admin request failed', { error: loggableThrown(error) })
 */
export function loggableThrown(error: unknown): Error | string {
  return error instanceof Error ? error : describeThrown(error);
}
