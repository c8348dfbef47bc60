import type { Response } from 'undici';
import { z } from 'zod';
import { HEADER_UNSAFE_TOKEN_MESSAGE, isHeaderSafeToken } from '../../admin/admin-token.ts';
import { ErrorBodySchema } from '../../admin/schemas.ts';
import { configurationError } from '../../configuration-error.ts';
import { isPortDigits, withValueLength } from '../../env-issues.ts';
import { describeThrown, formatIssuePath } from '../../errors.ts';
import {
  ADMIN_API_UNREACHABLE,
  FETCH_BLOCKED_PORTS,
  withoutFetchBlockedPorts,
} from '../../fetch-blocked-ports.ts';
import { CliExit, EXIT_FAILURE, EXIT_USAGE } from '../exit-codes.ts';
import { foreignAnswerMessage, foreignErrorText } from './foreign-answer.ts';
import {
  answeredRefusalText,
  conflictText,
  type FieldFlags,
  inputRefusalText,
} from './input-refusal.ts';

/** Port of the admin API of `change-bridge start` when BRIDGE_PORT is unset (design.md, CLI). */
export const DEFAULT_BRIDGE_PORT = 4000;

/** How long one admin API request may take before the command gives up. */
export const ADMIN_REQUEST_TIMEOUT_MS = 30_000;

/**
 * How long a request that deletes a stream's snapshots may take (`connections remove`,
 * `streams reset`, and `backfill`, which resets streams that had not completed a first sync): a hotel's 100,000 snapshots take seconds, and a minute while a backfill
 * keeps the store busy.
 */
export const ADMIN_DELETE_TIMEOUT_MS = 10 * 60_000;

/** Whole digits, as `start` reads BRIDGE_PORT: coercion took `0x10` for port 16 and ` 4100` for 4100. */
const BridgePortNumberSchema = z
  .string()
  .regex(/^\d{1,5}$/)
  .transform(Number)
  .pipe(z.number().min(1).max(65_535));

/**
 * BRIDGE_PORT as the admin commands read it: a port `start` could listen on, and not one fetch
 * never connects to, which `start` refuses in the same words (withoutFetchBlockedPorts): asked
 * there, the command said it could not reach the bridge, for what is a configuration fault.
 */
const BridgePortSchema = withoutFetchBlockedPorts(BridgePortNumberSchema, ADMIN_API_UNREACHABLE);

/** What the CLI says of an admin API URL whose port fetch never connects to, and what to do. */
function blockedPortAdvice(port: string): string {
  return `fetch never connects to port ${port} (a port browsers block too); run "change-bridge start" on another --port or BRIDGE_PORT`;
}

/**
 * The admin API base URL: `--api`, else `http://127.0.0.1:$BRIDGE_PORT` (port 4000 by default).
 * @throws ValidationError (a configuration error, exit 2) naming `--api` or `BRIDGE_PORT` when
 * malformed (showing the flag's value, not the variable's), or when fetch never connects to its
 * port (WHATWG "bad ports": 6000, 6665-6669, 10080…): BRIDGE_PORT in the words `start` refuses
 * it with, `--api` saying which port.
 */
export function resolveApiUrl(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): string {
  if (flag !== undefined) {
    const url = URL.canParse(flag) ? new URL(flag) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw configurationError('--api', `"${flag}" is not an http(s) URL`);
    }
    // fetch refuses a URL with credentials; the message leaves them out (a password).
    if (url.username !== '' || url.password !== '') {
      throw configurationError(
        '--api',
        'must not carry a user or password (the admin API takes BRIDGE_ADMIN_TOKEN)',
      );
    }
    // The routes' paths are appended: after a query or fragment they would be part of it.
    if (/[?#]/.test(flag)) {
      throw configurationError(
        '--api',
        `"${flag}" carries a query or fragment; give the base URL, e.g. http://127.0.0.1:4000`,
      );
    }
    // Refused before any request, as BRIDGE_PORT is: fetch would only fail there (`bad port`).
    // An empty port is the scheme's default (80, 443), which fetch connects to.
    if (url.port !== '' && FETCH_BLOCKED_PORTS.has(Number(url.port))) {
      throw configurationError('--api', `"${flag}": ${blockedPortAdvice(url.port)}`);
    }
    return flag.replace(/\/+$/, '');
  }
  if (env.BRIDGE_PORT === undefined || env.BRIDGE_PORT === '') {
    return `http://127.0.0.1:${DEFAULT_BRIDGE_PORT}`;
  }
  const port = BridgePortSchema.safeParse(env.BRIDGE_PORT);
  if (!port.success) {
    // The refinement runs only on a port's number: its message names those digits alone.
    const blocked = port.error.issues.find((issue) => issue.code === 'custom');
    throw configurationError(
      'BRIDGE_PORT',
      blocked?.message ??
        (isPortDigits(env.BRIDGE_PORT)
          ? `${env.BRIDGE_PORT} is not a port (1-65535)`
          : withValueLength('is not a port (1-65535)', env.BRIDGE_PORT)),
    );
  }
  return `http://127.0.0.1:${port.data}`;
}

/**
 * BRIDGE_ADMIN_TOKEN as the admin commands and `call --via-bridge` send it: trimmed, as `start`
 * reads it; empty is unset.
 * @throws ValidationError (a configuration error, exit 2) naming BRIDGE_ADMIN_TOKEN (never
 * showing it) when a header cannot carry it: fetch refused it, and the command said it could not
 * reach the admin API.
 */
export function adminTokenFrom(env: Record<string, string | undefined>): string | undefined {
  const token = env.BRIDGE_ADMIN_TOKEN?.trim();
  if (!token) return undefined;
  if (!isHeaderSafeToken(token)) {
    throw configurationError('BRIDGE_ADMIN_TOKEN', HEADER_UNSAFE_TOKEN_MESSAGE);
  }
  return token;
}

/** Why a fetch failed, from the system error undici attaches as `cause` (ECONNREFUSED…). */
const FetchFailureSchema = z.object({ cause: z.object({ code: z.string() }) });

/** fetch's own refusal of a port browsers block (6000, 6665, 10080…): undici's `bad port`. */
const BadPortSchema = z.object({ cause: z.object({ message: z.literal('bad port') }) });

/**
 * Why the admin API at `baseUrl` gave no answer, for the user: the system error's code
 * (`ECONNREFUSED`) rather than fetch's own `fetch failed`, and for a port fetch never connects
 * to, that port and what to do. Pure.
 * @example unreachableMessage('http://127.0.0.1:4000', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })) // 'cannot reach the admin API at http://127.0.0.1:4000 (ECONNREFUSED); is …'
 */
export function unreachableMessage(baseUrl: string, error: unknown): string {
  if (BadPortSchema.safeParse(error).success) {
    const port = URL.canParse(baseUrl) ? new URL(baseUrl).port : '';
    return `cannot reach the admin API at ${baseUrl}: ${blockedPortAdvice(port)}`;
  }
  const failure = FetchFailureSchema.safeParse(error);
  const reason = failure.success ? failure.data.cause.code : describeThrown(error);
  return `cannot reach the admin API at ${baseUrl} (${reason}); is "change-bridge start" running? Use --api URL or BRIDGE_PORT to point elsewhere`;
}

/** What a call sends: query parameters (absent ones are left out) and a JSON body. */
export interface CallOptions {
  query?: Record<string, string | undefined>;
  body?: unknown;
  /**
   * The route's own schemas of its query and body (shared/admin/schemas.ts): the input is
   * checked with them before anything is sent, so invalid input exits 2 naming the field as
   * the API would, whether or not a bridge is running.
   */
  check?: { query?: z.ZodType; body?: z.ZodType };
  /**
   * The command-line flag of each top-level field a flag sets (`{ initialSync: '--initial-sync' }`):
   * a refusal of that field names the flag the user typed instead of the field
   * (`--initial-sync: must be baseline or emit`; input-refusal.ts).
   */
  flags?: FieldFlags;
  /** Longest wait for the answer (default: the client's, {@link ADMIN_REQUEST_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Options of {@link AdminApiClient}. */
export interface AdminClientOptions {
  /** `BRIDGE_ADMIN_TOKEN`, sent as `authorization: Bearer …`. */
  token?: string;
  timeoutMs?: number;
}

/**
 * A small client of the admin HTTP API for the CLI. Maps failures to exit codes: the API
 * unreachable → exit 1 saying where it tried; 400 → exit 2 naming the field; any other
 * error status → exit 1 with the API's message; a response breaking its schema → exit 1.
 */
export class AdminApiClient {
  private readonly timeoutMs: number;
  private readonly token: string | undefined;

  constructor(
    readonly baseUrl: string,
    options: AdminClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? ADMIN_REQUEST_TIMEOUT_MS;
    this.token = options.token;
  }

  /** Sends one request and parses the JSON response with `schema`. */
  async call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: CallOptions = {},
  ): Promise<z.output<S>> {
    return (await this.callWithStatus(method, path, schema, options)).body;
  }

  /**
   * Sends one request as {@link call} does, answering the success status beside the parsed
   * body, for routes whose successes differ by it (201 created, 200 stored already).
   */
  async callWithStatus<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: CallOptions = {},
  ): Promise<{ status: number; body: z.output<S> }> {
    const response = await this.send(method, path, options);
    const result = schema.safeParse(response.json);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${formatIssuePath(issue.path)}: ` : '';
      throw this.foreignAnswer(
        method,
        `${this.baseUrl}${path}`,
        response.status,
        `JSON of another shape (${where}${issue?.message ?? 'invalid'})`,
      );
    }
    return { status: response.status, body: result.data };
  }

  /** Exit 1 for an answer the admin API never gives: another program listens at the base URL. */
  private foreignAnswer(method: string, url: string, status: number, what: string): CliExit {
    return new CliExit(EXIT_FAILURE, foreignAnswerMessage(method, url, status, this.baseUrl, what));
  }

  /** Sends one request whose success carries no body (204). */
  async callNoContent(method: string, path: string, options: CallOptions = {}): Promise<void> {
    await this.send(method, path, options);
  }

  private async send(
    method: string,
    path: string,
    options: CallOptions,
  ): Promise<{ status: number; json: unknown }> {
    const query = Object.entries(options.query ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    );
    checkInput(options.check?.query, Object.fromEntries(query), 'query', options.flags);
    checkInput(options.check?.body, options.body, 'body', options.flags);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of query) url.searchParams.set(key, value);
    // Loaded at the first request, not with the CLI: `--help`, `--version` and input refused
    // before sending (exit 2) need none of undici, a fifth of the CLI's load.
    const { Agent, fetch } = await import('undici');
    let response: Response;
    // The request's own timeout is `timeoutMs` alone: fetch's agent would stop waiting for the
    // answer's headers after 300 s (UND_ERR_HEADERS_TIMEOUT), under the 10 minutes of a removal.
    const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
    try {
      response = await fetch(url, {
        dispatcher,
        method,
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      dispatcher.close().catch(() => undefined);
      if (error instanceof Error && error.name === 'TimeoutError') {
        // Reached, but slow: a change it was making (a remove deleting snapshots) may go on.
        throw new CliExit(
          EXIT_FAILURE,
          `the admin API at ${this.baseUrl} did not answer ${method} ${path} within ${timeoutMs / 1000} s; what it was doing may still be under way: look before you run it again`,
        );
      }
      throw new AdminUnreachable(unreachableMessage(this.baseUrl, error));
    }
    const text = await response.text().finally(() => dispatcher.close());
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw this.foreignAnswer(method, url.href, response.status, 'a body that is not JSON');
    }
    if (response.ok) return { status: response.status, json };
    const error = ErrorBodySchema.safeParse(json);
    if (response.status === 401) {
      throw new CliExit(
        EXIT_FAILURE,
        this.token === undefined
          ? `the admin API at ${this.baseUrl} needs a token: set BRIDGE_ADMIN_TOKEN`
          : `the admin API at ${this.baseUrl} refused BRIDGE_ADMIN_TOKEN (HTTP 401)`,
      );
    }
    // Every other error of the admin API carries {error}: without it, another program answered
    // (a 400 of its own is no invalid input of ours: exit 1, not 2).
    if (!error.success) {
      throw this.foreignAnswer(method, url.href, response.status, foreignErrorText(json));
    }
    const message = error.data.error;
    if (response.status === 400) {
      const field = error.data.field ?? 'input';
      const input = options.body ?? options.query;
      throw new CliExit(EXIT_USAGE, answeredRefusalText(message, field, options.flags, input));
    }
    // A conflict about fields the command took from flags names the flags (the API, its fields).
    const told =
      response.status === 409 && error.data.fields !== undefined
        ? conflictText(message, error.data.fields, options.flags)
        : message;
    throw new CliExit(EXIT_FAILURE, `${told} (HTTP ${response.status} from ${this.baseUrl})`);
  }
}

/**
 * Exits 2 naming the field, as the API's 400 would (led by its flag when `flags` names one, in
 * plain words: {@link inputRefusalText}), when `value` breaks `schema`: invalid input is refused
 * whether or not a bridge is running.
 * @example checkInput(z.object({ id: ConnectionIdSchema }), { id: 'no spaces' }, 'id') // exits 2: "id: …"
 */
export function checkInput(
  schema: z.ZodType | undefined,
  value: unknown,
  location: string,
  flags?: FieldFlags,
): void {
  const result = schema?.safeParse(value);
  if (result === undefined || result.success) return;
  throw new CliExit(EXIT_USAGE, inputRefusalText(result.error, location, flags, value));
}

/** The admin API could not be reached at all (no answer): exit 1, or a caller waiting may retry. */
export class AdminUnreachable extends CliExit {
  override name = 'AdminUnreachable';
  constructor(message: string) {
    super(EXIT_FAILURE, message);
  }
}
