import { z } from 'zod';

/** The message field other JSON APIs answer errors with (API Gateway's, the simulator's). */
const ForeignErrorSchema = z.union([
  z.object({ message: z.string() }),
  z.object({ Message: z.string() }),
]);

/** The most of a foreign answer's own message that is shown. */
const FOREIGN_MESSAGE_CHARS = 120;

/**
 * What a JSON answer without the admin API's `{error}` says of itself, in words: its own
 * `message` (API Gateway's `Missing Authentication Token`) or `Message`, clipped. Pure.
 * @example foreignErrorText({ message: 'Forbidden' }) // 'no {error} body ("Forbidden")'
 */
export function foreignErrorText(json: unknown): string {
  const parsed = ForeignErrorSchema.safeParse(json);
  if (!parsed.success) return 'no {error} body';
  const text = 'message' in parsed.data ? parsed.data.message : parsed.data.Message;
  const clipped =
    text.length > FOREIGN_MESSAGE_CHARS ? `${text.slice(0, FOREIGN_MESSAGE_CHARS - 1)}…` : text;
  return `no {error} body (${JSON.stringify(clipped)})`;
}

/**
 * The message for an answer the admin API of `change-bridge start` never gives (a body that is
 * not JSON, an error without its `{error}` body, a success of another shape): another program
 * listens at `baseUrl` (the simulator, a dev server on port 4000), so the command says where
 * it looked and how to point elsewhere, rather than a bare `HTTP 404`. Pure.
 * @example foreignAnswerMessage('GET', 'http://127.0.0.1:4000/events', 404, 'http://127.0.0.1:4000', 'a body that is not JSON')
 * // 'GET http://127.0.0.1:4000/events answered 404 with a body that is not JSON, not as the admin API of change-bridge answers: is "change-bridge start" running at http://127.0.0.1:4000? …'
 */
export function foreignAnswerMessage(
  method: string,
  url: string,
  status: number,
  baseUrl: string,
  what: string,
): string {
  return `${method} ${url} answered ${status} with ${what}, not as the admin API of change-bridge answers: is "change-bridge start" running at ${baseUrl}? Use --api URL or BRIDGE_PORT to point elsewhere`;
}
