/** Types of api.js (a browser module of the console, also tested under Node). */

/** An answer of the API that is not a success; `status` is its HTTP status. */
export class ApiError extends Error {
  constructor(status: number, message: string);
  status: number;
}

/**
 * Sets what asks the operator for a token after a 401; it resolves true once one is stored.
 * `refused` says why the token entered last was not taken (the API refused it too).
 */
export function onUnauthorized(ask: (refused?: string) => Promise<boolean>): void;

/** Whether a header can carry `token`: printable ASCII, as BRIDGE_ADMIN_TOKEN must be. */
export function isSendableToken(token: string): boolean;

/** Keeps the admin token for the tab (sessionStorage). */
export function storeToken(token: string): void;

/** Calls the API and returns the parsed JSON body (undefined for 204); throws ApiError otherwise. */
export function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<ReturnType<typeof JSON.parse>>;

/** A query string from defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): string;
