import { ValidationError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';

/** The fields of a Connector API envelope that carry its credentials. */
export const CREDENTIAL_FIELDS = ['ClientToken', 'AccessToken', 'Client'] as const;

/** Where a direct call's credentials, and the `local` connection's, come from. */
export const ENVIRONMENT_CREDENTIALS = 'the CONNECTOR_* variables';

/** Where the credentials come from when the caller knows no better (the client's own guard). */
export const CONFIGURED_CREDENTIALS = 'the configured connection';

/**
 * Where the credentials of a connection added at run time come from, for messages: its
 * AccessToken as `connections add` stored it and the deployment's ClientToken, `clientToken`
 * (the CONNECTOR_* variables do not hold its AccessToken). Pure.
 * @example storedConnectionCredentials('hotel-2', "the deployment's ClientToken")
 */
export function storedConnectionCredentials(connectionId: string, clientToken: string): string {
  return `connection ${connectionId} (its AccessToken as \`connections add\` stored it, ${clientToken})`;
}

/**
 * Refuses a request body that carries a credential field: the bridge, or the CLI, adds them
 * itself from `source` (what the user configured: {@link ENVIRONMENT_CREDENTIALS}, a stored
 * connection, a connection secret), so one in the body is a mistake, and a token where it does
 * not belong. Named with why, not only as an unknown field.
 * @throws ValidationError naming the first credential field, labelled `what`.
 * @example refuseCredentialFields({ AccessToken: 't' }, 'customers/getAll request', ENVIRONMENT_CREDENTIALS) // throws
 */
export function refuseCredentialFields(
  body: unknown,
  what: string,
  source: string = CONFIGURED_CREDENTIALS,
): void {
  if (!isJsonObject(body)) return;
  const field = CREDENTIAL_FIELDS.find((name) => name in body);
  if (field === undefined) return;
  throw new ValidationError(what, [
    {
      path: field,
      message: `leave it out: ClientToken, AccessToken and Client are added from ${source}`,
    },
  ]);
}

/**
 * Tokens shorter than this are not looked for in answers: replacing every occurrence of a
 * two-letter test token would garble ordinary words, and real tokens are far longer.
 */
export const REDACTED_TOKEN_MIN_LENGTH = 8;

/** What stands in an answer where one of the connection's tokens was. */
export const REDACTED_TOKEN = '<redacted>';

/**
 * `text` with every occurrence of `tokens` (as written, and as escaped inside a JSON string)
 * replaced by {@link REDACTED_TOKEN}: a connector, proxy or gateway that repeats the request
 * in its error answer must not carry the ClientToken or AccessToken into an error message,
 * a stream's `lastError`, a log line or a CLI output. Pure.
 * @example withoutTokens('bad token secret-token-1', ['secret-token-1']) === 'bad token <redacted>'
 */
export function withoutTokens(text: string, tokens: readonly string[]): string {
  let result = text;
  for (const token of tokens) {
    if (token.length < REDACTED_TOKEN_MIN_LENGTH) continue;
    for (const form of new Set([token, JSON.stringify(token).slice(1, -1)]))
      result = result.split(form).join(REDACTED_TOKEN);
  }
  return result;
}
