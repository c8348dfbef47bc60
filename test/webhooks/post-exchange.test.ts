import { describe, expect, it } from 'vitest';
import {
  RESPONSE_BODY_DRAIN_MAX_BYTES,
  RESPONSE_BODY_KEEP_BYTES,
} from '../../shared/webhooks/http-response.ts';
import { PostExchange } from '../../shared/webhooks/post-exchange.ts';

/** A dispatch controller that records the reasons it was aborted with. */
function fakeController() {
  const reasons: Error[] = [];
  return {
    reasons,
    controller: {
      aborted: false,
      paused: false,
      reason: null,
      abort: (reason: Error) => void reasons.push(reason),
      pause: () => undefined,
      resume: () => undefined,
    },
  };
}

describe('PostExchange', () => {
  it('answers the final status, headers and body, passing an interim 1xx by', async () => {
    const exchange = new PostExchange();
    const { controller } = fakeController();
    exchange.onRequestStart(controller);
    exchange.onResponseStart(controller, 100, {});
    exchange.onResponseStart(controller, 429, { 'retry-after': '2' });
    exchange.onResponseData(controller, Buffer.from('slow '));
    exchange.onResponseData(controller, Buffer.from('down'));
    exchange.onResponseEnd();
    await expect(exchange.answer).resolves.toEqual({
      kind: 'answer',
      status: 429,
      headers: { 'retry-after': '2' },
      body: 'slow down',
    });
  });

  it('keeps the first 4 KB of a body and cuts the connection past the drain limit', async () => {
    const exchange = new PostExchange();
    const { controller, reasons } = fakeController();
    exchange.onRequestStart(controller);
    exchange.onResponseStart(controller, 200, {});
    const chunk = Buffer.alloc(64 * 1024, 'a');
    for (let read = 0; read <= RESPONSE_BODY_DRAIN_MAX_BYTES; read += chunk.length)
      exchange.onResponseData(controller, chunk);
    expect(reasons).toHaveLength(1);
    const answer = await exchange.answer;
    expect(answer.kind === 'answer' && answer.body.length).toBe(RESPONSE_BODY_KEEP_BYTES);
  });

  it('settles at once when aborted before its request started, and aborts the request as it starts', async () => {
    const exchange = new PostExchange();
    const reason = new Error('stopping');
    exchange.abort(reason);
    await expect(exchange.answer).resolves.toEqual({ kind: 'failure', error: reason });
    expect(exchange.aborted).toBe(true);
    const { controller, reasons } = fakeController();
    exchange.onRequestStart(controller);
    expect(reasons).toEqual([reason]);
  });

  it('answers with what came when cut off after the status', async () => {
    const exchange = new PostExchange();
    const { controller, reasons } = fakeController();
    exchange.onRequestStart(controller);
    exchange.onResponseStart(controller, 202, {});
    exchange.onResponseData(controller, Buffer.from('part'));
    exchange.abort(new Error('timeout'));
    exchange.onResponseError(controller, new Error('aborted'));
    expect(reasons).toHaveLength(1);
    await expect(exchange.answer).resolves.toMatchObject({
      kind: 'answer',
      status: 202,
      body: 'part',
    });
  });

  it('fails with the error when no final status came', async () => {
    const exchange = new PostExchange();
    const refused = new Error('connect ECONNREFUSED');
    exchange.onResponseError(undefined, refused);
    await expect(exchange.answer).resolves.toEqual({ kind: 'failure', error: refused });
  });
});
