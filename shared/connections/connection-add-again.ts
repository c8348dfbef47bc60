/**
 * An add whose id is taken: the same add again (a retry after a timeout or a killed CLI, once
 * the first attempt had landed) or another definition. Compared field by field, and the token
 * by opening the stored one: every stored connection keeps its token sealed the same way, so
 * one stored by any earlier release compares with no migration.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ConnectionSettings, StoredConnection } from './connection.ts';
import { ConnectionExistsError } from './connection-store.ts';
import { type TokenCipher, TokenDecryptionError } from './token-cipher.ts';

/** Each setting of a stored connection, and the field of an add that sets it. */
const SETTING_FIELDS: readonly [keyof ConnectionSettings, string][] = [
  ['portfolioScope', 'portfolioScope'],
  ['entities', 'entities'],
  ['intervalMs', 'interval'],
  ['initialSync', 'initialSync'],
  ['productIds', 'productIds'],
  ['exportIds', 'exportIds'],
];

/**
 * The fields of an add (named as the add takes them) whose settings differ from the stored
 * connection's; empty when every one is the same. A list in another order differs: it is
 * stored, shown and polled in its order. Pure.
 * @example settingsDifferences(stored, { ...stored, intervalMs: 120_000 }) // ['interval']
 */
export function settingsDifferences(
  stored: ConnectionSettings,
  candidate: ConnectionSettings,
): string[] {
  return SETTING_FIELDS.filter(([key]) => !isDeepStrictEqual(stored[key], candidate[key])).map(
    ([, field]) => field,
  );
}

/**
 * Whether two tokens are the same, in time that does not depend on where they differ: their
 * SHA-256 digests (equal-length buffers, as timingSafeEqual needs, whatever the tokens'
 * lengths) compared with timingSafeEqual. Pure.
 */
export function sameToken(a: string, b: string): boolean {
  const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Returns when `candidate` (an add's settings and its AccessToken) is the definition `stored`
 * holds; the stored token is opened to compare and neither is ever part of a message.
 * @throws ConnectionExistsError saying the id is taken by a different definition and naming
 * the fields that differ (`accessToken` among them), or that the stored token does not open
 * here (its key is gone), so the two cannot be compared.
 * @throws TokenDecryptionError when the key provider failed for a while (retryable): try again.
 */
export async function assertSameDefinition(
  stored: StoredConnection,
  candidate: { settings: ConnectionSettings; accessToken: string },
  cipher: TokenCipher,
): Promise<void> {
  const differences = settingsDifferences(stored, candidate.settings);
  let storedToken: string;
  try {
    storedToken = await cipher.open(stored.id, stored.accessToken);
  } catch (error) {
    if (!(error instanceof TokenDecryptionError) || error.retryable) throw error;
    if (differences.length > 0) throw differentDefinition(stored.id, differences, error);
    throw new ConnectionExistsError(stored.id, {
      cause: error,
      detail:
        'but its stored AccessToken does not open here to be compared (the key that sealed it is gone: locally, connections.key was replaced): remove it and add it again',
    });
  }
  if (!sameToken(storedToken, candidate.accessToken)) differences.push('accessToken');
  if (differences.length > 0) throw differentDefinition(stored.id, differences);
}

function differentDefinition(
  id: string,
  differences: readonly string[],
  cause?: unknown,
): ConnectionExistsError {
  const verb = differences.length === 1 ? 'differs' : 'differ';
  return new ConnectionExistsError(id, {
    ...(cause === undefined ? {} : { cause }),
    differences,
    detail: `taken by a different definition (${differences.join(', ')} ${verb}): remove it first, or choose another id`,
  });
}
