import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { RESPONSE_BODY_DRAIN_MAX_BYTES, RESPONSE_BODY_KEEP_BYTES } from './http-response.ts';

/** What one POST came to: the final answer, or the failure that left none. */
export type PostAnswer =
  | { kind: 'answer'; status: number; headers: IncomingHttpHeaders; body: string }
  | { kind: 'failure'; error: unknown };

/**
 * One POST as undici's dispatch API hands it over, for `Dispatcher.dispatch`: the final status
 * and headers (interim 1xx answers passed by) and the first {@link RESPONSE_BODY_KEEP_BYTES} of
 * the body, read up to {@link RESPONSE_BODY_DRAIN_MAX_BYTES} (past that the connection is
 * dropped rather than drained). Undici's `request` makes a body stream, an async resource and
 * abort-signal listeners for each request, which a webhook's answer, read whole at once, does
 * not need.
 *
 * Once the status came, it alone decides the attempt (design.md: success is any 2xx within the
 * timeout): a body that breaks off or is cut off by {@link abort} ends the read with what came.
 * {@link abort} settles the answer at once, even for a request still waiting for its
 * connection (a host lookup or a connect that hangs): undici aborts that request as its
 * connection comes, before sending it.
 */
export class PostExchange implements Dispatcher.DispatchHandler {
  /** Settles once: at the body's end, at a failure, or at {@link abort}. */
  readonly answer: Promise<PostAnswer>;
  #settle!: (answer: PostAnswer) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #readBytes = 0;

  constructor() {
    this.answer = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Whether {@link abort} was called. */
  get aborted(): boolean {
    return this.#abortReason !== undefined;
  }

  /** Cuts the request off (or keeps it from being sent) and settles the answer with what came. */
  abort(reason: Error): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    this.#finish(reason);
  }

  // Undici may start a request again on another connection (the pipeline's head failed): what
  // an earlier start heard of is not this one's answer.
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    this.#status = 0;
    this.#headers = {};
    this.#kept = [];
    this.#keptBytes = 0;
    this.#readBytes = 0;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#readBytes += chunk.length;
    if (this.#keptBytes < RESPONSE_BODY_KEEP_BYTES) {
      const part = chunk.subarray(0, RESPONSE_BODY_KEEP_BYTES - this.#keptBytes);
      this.#kept.push(part);
      this.#keptBytes += part.length;
    }
    if (this.#readBytes > RESPONSE_BODY_DRAIN_MAX_BYTES) {
      const tooLong = new Error(`response body past ${RESPONSE_BODY_DRAIN_MAX_BYTES} bytes`);
      this.#finish(tooLong);
      controller.abort(tooLong);
    }
  }

  onResponseEnd(): void {
    this.#finish(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#finish(error);
  }

  #finish(error: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#status >= 200) {
      const body = this.#kept.length === 0 ? '' : Buffer.concat(this.#kept).toString('utf8');
      this.#settle({ kind: 'answer', status: this.#status, headers: this.#headers, body });
    } else {
      this.#settle({ kind: 'failure', error: error ?? new Error('the response ended unanswered') });
    }
    this.#kept = [];
  }
}
