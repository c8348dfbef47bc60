import { describe, expect, it } from 'vitest';
import { startReceiver } from './support/receiver.ts';

describe('the test receiver', () => {
  it("logs its own test's requests only: another test's stale URL on a reused port gets 404", async () => {
    const receiver = await startReceiver();
    try {
      const own = receiver.url('/endpoint-0');
      const stale = `${new URL(own).origin}/endpoint-0`;
      expect((await fetch(stale, { method: 'POST', body: '{}' })).status).toBe(404);
      expect((await fetch(own, { method: 'POST', body: '{}' })).status).toBe(200);
      expect(receiver.log.map((r) => r.path)).toEqual(['/endpoint-0']);
    } finally {
      await receiver.close();
    }
  });
});
