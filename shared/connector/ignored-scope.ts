import { parseOrThrow } from '../errors.ts';
import { refuseCredentialFields } from './credential-fields.ts';
import type { OperationSpec } from './operations.ts';

/**
 * The body as the service reads it from an ordinary AccessToken (not a Portfolio Access
 * Token): customers/getAll's `ChainIds` is "required with Portfolio Access Tokens, ignored
 * otherwise" (connector-api.md #1; Authentication 3), so it is left out, and neither filters
 * nor counts as the filter that spares `CustomerIds`. Other bodies come back as given. Pure.
 * @example readByOrdinaryToken(OPERATIONS['customers/getAll'], { ChainIds: [id] }) // {}
 */
export function readByOrdinaryToken(
  spec: Pick<OperationSpec, 'portfolioScope'>,
  body: Record<string, unknown>,
): Record<string, unknown> {
  if (spec.portfolioScope !== 'ChainIds' || !('ChainIds' in body)) return body;
  const { ChainIds: _ignored, ...rest } = body;
  return rest;
}

/**
 * Parses a request body strictly and, when the credential is known to be an ordinary
 * AccessToken, checks it also as the service reads it ({@link readByOrdinaryToken}), so a
 * customers/getAll whose only filter is `ChainIds` is refused as the service refuses it.
 * Returns the parsed body (a `ChainIds` given stays in it). A credential field is refused
 * naming `credentialSource`, where the credentials come from (see refuseCredentialFields).
 * @throws ValidationError naming the field, labelled `what`.
 */
export function parseRequestFor(
  spec: OperationSpec,
  body: unknown,
  credential: 'ordinary' | 'portfolio-or-unknown',
  what: string,
  credentialSource?: string,
): Record<string, unknown> {
  refuseCredentialFields(body, what, credentialSource);
  const parsed = parseOrThrow(spec.request, body, what) as Record<string, unknown>;
  if (credential === 'ordinary') {
    const read = readByOrdinaryToken(spec, parsed);
    if (read !== parsed) parseOrThrow(spec.request, read, what);
  }
  return parsed;
}
