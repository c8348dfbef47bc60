import { BridgeError } from '../errors.ts';

/**
 * What went wrong with a Connector API call. The HTTP statuses follow the facts table of
 * design.md: 400 client, 401 authorization, 403 server-side validation, 408 timeout,
 * 409 conflict, 429 too many requests, 500 internal. `network` and `response` are ours:
 * the request never got an answer, or the answer broke the contract.
 */
export type ConnectorErrorCategory =
  | 'client'
  | 'authorization'
  | 'validation'
  | 'timeout'
  | 'conflict'
  | 'rate-limit'
  | 'internal'
  | 'network'
  | 'response';

const CATEGORY_BY_STATUS: Readonly<Record<number, ConnectorErrorCategory>> = {
  400: 'client',
  401: 'authorization',
  403: 'validation',
  408: 'timeout',
  409: 'conflict',
  429: 'rate-limit',
  500: 'internal',
};

const RETRYABLE_CATEGORIES: ReadonlySet<ConnectorErrorCategory> = new Set([
  'timeout',
  'rate-limit',
  'internal',
  'network',
]);

/** Maps an HTTP status to its error category; unknown 5xx count as internal, other statuses as client. */
export function categoryOfStatus(status: number): ConnectorErrorCategory {
  return CATEGORY_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'client');
}

/** Fields a {@link ConnectorError} carries besides its message. */
export interface ConnectorErrorInit {
  category: ConnectorErrorCategory;
  operation: string;
  status?: number | undefined;
  requestId?: string | null | undefined;
  details?: unknown;
  retryAfterMs?: number | undefined;
  /** The request never reached the server (see ConnectorError.unsent). */
  unsent?: boolean;
  cause?: unknown;
}

/**
 * A failed Connector API call: the category, the API's `Message`, `RequestId` and `Details`.
 * `retryable` is true for timeout, too-many-requests, internal and network failures.
 */
export class ConnectorError extends BridgeError {
  override name = 'ConnectorError';
  readonly category: ConnectorErrorCategory;
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | null;
  readonly details: unknown;
  /** The wait the server asked for (429 `Retry-After`), when it gave one. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when the request never reached the server (the connection refused, the name not
   * found): nothing of it was applied, so even an add may be sent again.
   */
  readonly unsent: boolean;

  constructor(message: string, init: ConnectorErrorInit) {
    super(message, { cause: init.cause, retryable: RETRYABLE_CATEGORIES.has(init.category) });
    this.category = init.category;
    this.operation = init.operation;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? null;
    this.retryAfterMs = init.retryAfterMs;
    this.unsent = init.unsent === true;
  }

  /** True for errors that should stop a stream until a person acts (bad or revoked credentials). */
  get isAuthorization(): boolean {
    return this.category === 'authorization';
  }
}
