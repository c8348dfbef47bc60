import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_MAX_BODY_BYTES } from '../../shared/simulator/http-util.ts';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/** A body past the simulator's limit is a malformed request: the client error, not a 500. */
describe('a request body larger than the simulator reads', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('is a 400 client error with its own Request-Id repeated in the body, every time', async () => {
    const email = 'x'.repeat(100);
    const body = JSON.stringify({
      ...envelope(h.sim),
      Limitation: { Count: 1 },
      Extent: { Customers: true },
      Emails: Array.from({ length: Math.ceil(SIM_MAX_BODY_BYTES / email.length) }, () => email),
    });
    expect(body.length).toBeGreaterThan(SIM_MAX_BODY_BYTES);
    const ids = new Set<string>();
    // Before, a 500 "Unexpected failure" with the Request-Id `sim`, or a reset connection.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await postRaw(h.sim, 'customers/getAll', body);
      expect(answer.status).toBe(400);
      const id = answer.headers.get('request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const parsed = JSON.parse(answer.text) as { Message: string; RequestId: string };
      expect(parsed.RequestId).toBe(id);
      expect(parsed.Message).toMatch(/request body/);
      ids.add(id!);
    }
    expect(ids.size).toBe(3);
    // The connection and the server are fine afterwards.
    const ok = await postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));
    expect(ok.status).toBe(200);
  });
});
