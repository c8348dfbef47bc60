/**
 * The admin API as the console calls it: same origin, JSON bodies with
 * `content-type: application/json`, and `authorization: Bearer <token>` once the operator
 * has entered the admin token (kept in sessionStorage, asked for when the API answers 401).
 */

const TOKEN_KEY = 'change-bridge.admin-token';

/** An answer of the API that is not a success; `status` is its HTTP status. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** @type {((refused?: string) => Promise<boolean>) | undefined} */
let askForToken;

/** Why the token is asked for again: the one just entered was answered 401 as well. */
const TOKEN_REFUSED = 'The API refused that token: enter it again';

/**
 * Sets what asks the operator for a token after a 401; it resolves true once one is stored.
 * It is given why when the API refused the token entered last.
 * @param {(refused?: string) => Promise<boolean>} ask
 */
export function onUnauthorized(ask) {
  askForToken = ask;
}

/**
 * Whether a header can carry `token`: printable ASCII, as BRIDGE_ADMIN_TOKEN must be. fetch
 * throws before sending for a character beyond Latin-1 (a pasted zero-width space), so such a
 * token could never be refused with the 401 that asks for another.
 * @param {string} token
 */
export function isSendableToken(token) {
  return /^[\x20-\x7e]+$/.test(token);
}

/** @param {string} token */
export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/**
 * @param {string} method
 * @param {string} path relative to the page, e.g. `streams` or `events/evt_1/replay`
 * @param {unknown} [body] `{}` when a write has none: every write is JSON, as the API asks
 */
async function send(method, path, body = method === 'GET' ? undefined : {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token && isSendableToken(token)) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(new URL(path, document.baseURI), {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/**
 * The message of an error answer: the admin API's `{error}`, or API Gateway's `{message}` (its
 * 403, 429 and 5xx in AWS, answered before the bridge is reached); undefined for any other body.
 * @param {unknown} parsed
 * @returns {string | undefined}
 */
function errorMessage(parsed) {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { error, message } = /** @type {{ error?: unknown, message?: unknown }} */ (parsed);
  if (typeof error === 'string') return error;
  return typeof message === 'string' ? message : undefined;
}

/**
 * Calls the API and returns the parsed JSON body (undefined for 204).
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 * @throws {ApiError} with the API's own message on any status but 2xx
 */
export async function api(method, path, body) {
  let response = await send(method, path, body);
  // Whether the operator cancelled the prompt for the token (now or before, until a reload).
  let declined = false;
  /** @type {string | undefined} */
  let refused;
  // Asked until the API takes the token entered or the operator cancels: a mistyped token is
  // asked for again at once, saying so, not left to fail this view and prompt bare later.
  while (response.status === 401 && askForToken && !declined) {
    if (await askForToken(refused)) {
      response = await send(method, path, body);
      refused = TOKEN_REFUSED;
    } else declined = true;
  }
  if (response.status === 204) return undefined;
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const message = errorMessage(parsed) ?? text;
    // Every refused call says it (the status line shows the last one), not only the prompt's end.
    const hint = declined ? ' (reload the page to enter it)' : '';
    throw new ApiError(
      response.status,
      `${response.status}: ${message || response.statusText}${hint}`,
    );
  }
  return parsed;
}

/**
 * A query string from defined, non-empty values.
 * @param {Record<string, string | number | undefined>} params
 */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
