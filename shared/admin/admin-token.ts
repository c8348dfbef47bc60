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

/**
 * The shortest BRIDGE_ADMIN_TOKEN `start` takes without a warning: 16 characters (a random one of
 * 16 is beyond guessing through the admin API). design.md sets no minimum, so a shorter one is
 * taken, with {@link shortAdminTokenWarning}.
 */
export const ADMIN_TOKEN_RECOMMENDED_MIN_CHARS = 16;

/**
 * The one warning line `start` prints when BRIDGE_ADMIN_TOKEN (already trimmed) is shorter than
 * {@link ADMIN_TOKEN_RECOMMENDED_MIN_CHARS}; undefined for a long enough token or none. It names
 * the variable and the length recommended, never the token nor its length (a secret). Pure.
 * @example shortAdminTokenWarning('x') // 'BRIDGE_ADMIN_TOKEN is shorter than 16 characters: …'
 * @example shortAdminTokenWarning(undefined) // undefined
 */
export function shortAdminTokenWarning(token: string | undefined): string | undefined {
  if (token === undefined || token.length >= ADMIN_TOKEN_RECOMMENDED_MIN_CHARS) return undefined;
  return `BRIDGE_ADMIN_TOKEN is shorter than ${ADMIN_TOKEN_RECOMMENDED_MIN_CHARS} characters: a short token is easy to guess; set a random one of at least ${ADMIN_TOKEN_RECOMMENDED_MIN_CHARS} (e.g. openssl rand -hex 32)`;
}
