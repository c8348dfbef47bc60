import { ValidationError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';

/** The fields of a Connector API envelope that carry its credentials. */
export const CREDENTIAL_FIELDS = ['ClientToken', 'AccessToken', 'Client'] as const;

/**
 * Refuses a request body that carries a credential field: the bridge, or the CLI from the
 * CONNECTOR_* variables, adds them itself, so one in the body is a mistake, and a token where
 * it does not belong. Named with why, not only as an unknown field.
 * @throws ValidationError naming the first credential field, labelled `what`.
 * @example refuseCredentialFields({ AccessToken: 't' }, 'customers/getAll request') // throws
 */
export function refuseCredentialFields(body: unknown, what: string): void {
  if (!isJsonObject(body)) return;
  const field = CREDENTIAL_FIELDS.find((name) => name in body);
  if (field === undefined) return;
  throw new ValidationError(what, [
    {
      path: field,
      message:
        'leave it out: ClientToken, AccessToken and Client are added from the configured connection (the CONNECTOR_* variables)',
    },
  ]);
}
