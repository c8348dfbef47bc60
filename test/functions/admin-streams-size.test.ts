import { afterEach, describe, expect, it } from 'vitest';
import {
  createAdminApiHandler,
  STREAM_LIST_BYTES,
  STREAM_LIST_LIMIT,
} from '../../functions/admin-api.ts';
import { STORED_ERROR_MAX_CHARS } from '../../shared/polling/poll-stream.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { streamState } from '../state/state-store.contract.ts';

let harness: AdminHarness | undefined;
afterEach(async () => {
  await harness?.close();
});

/** Lambda's most bytes of a synchronous invocation's response: the proxy result as JSON. */
const LAMBDA_RESPONSE_MAX_BYTES = 6 * 1024 * 1024;

describe('GET /streams behind API Gateway (the admin function)', () => {
  it("answers streams with the longest errors in pages that fit Lambda's 6 MB, every stream once", async () => {
    harness = createAdminHarness();
    // Errors as long as a state keeps, in the characters JSON escapes most, twice: quotes,
    // newlines, and characters of three bytes in UTF-8.
    const worst = (char: string) => char.repeat(STORED_ERROR_MAX_CHARS);
    const ids: string[] = [];
    for (let i = 0; i < 600; i++) {
      const id = `hotel-${String(i).padStart(4, '0')}:customer`;
      ids.push(id);
      await harness.state.saveStream(
        streamState(id, {
          parked: true,
          lastError: worst('"'),
          parkedReason: worst('€'),
          lastSetAside: { error: worst('\n'), at: 0 },
        }),
        0,
      );
    }
    const deps = {
      ...harness.deps,
      streamListLimit: STREAM_LIST_LIMIT,
      streamListBytes: STREAM_LIST_BYTES,
    };
    const lambda = createAdminApiHandler(() => deps);
    const get = (rawQueryString: string) =>
      lambda({
        rawPath: '/streams',
        rawQueryString,
        headers: {},
        requestContext: { http: { method: 'GET' } },
      } as never);

    const listed: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const result = await get(cursor ? `cursor=${cursor}` : '');
      expect(result.statusCode).toBe(200);
      sizes.push(Buffer.byteLength(JSON.stringify(result)));
      const body = JSON.parse(result.body!) as { streams: { id: string }[]; nextCursor?: string };
      listed.push(...body.streams.map((s) => s.id));
      cursor = body.nextCursor;
    } while (cursor !== undefined);

    // The harness's own connection's streams (main:…) besides.
    expect(listed).toEqual([...ids, ...harness.streams.map((d) => d.streamId)].sort());
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_MAX_BYTES);
    // One answer of them all would not have fitted.
    expect(sizes.reduce((a, b) => a + b)).toBeGreaterThan(LAMBDA_RESPONSE_MAX_BYTES);
  }, 60_000);
});
