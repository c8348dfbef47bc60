/**
 * Why a BRIDGE_ADMIN_TOKEN is refused when {@link isHeaderSafeToken} says no; it names no
 * character of the token (a secret).
 */
export const HEADER_UNSAFE_TOKEN_MESSAGE =
  'must be printable ASCII (it is sent as a bearer token in a header)';

/**
 * True when an `authorization: Bearer …` header can carry `token` (already trimmed) from both
 * clients of the admin API: printable ASCII only. fetch refuses a line break or a control
 * character in a header, and a character beyond ASCII is not sent as typed. Pure.
 * @example isHeaderSafeToken('tok-123') === true; isHeaderSafeToken('tok\n2') === false
 */
export function isHeaderSafeToken(token: string): boolean {
  return /^[\x20-\x7e]+$/.test(token);
}
