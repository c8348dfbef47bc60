import { afterEach, describe, expect, it, vi } from 'vitest';
import { SUBSCRIPTION_WRITE_TRIES } from '../../shared/webhooks/subscription-change.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await harness?.close();
  harness = undefined;
});

describe('a subscription change that keeps losing to other processes', () => {
  it('answers 409 saying so (retry later), not 500 "internal error"', async () => {
    harness = createAdminHarness();
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    // Another process writes the subscription between each read and write of this one.
    const lost = vi.spyOn(harness.store, 'replaceSubscription').mockResolvedValue(undefined);

    const answer = await harness.call('POST', `/subscriptions/${id}/rotate-secret`);

    expect(lost).toHaveBeenCalledTimes(SUBSCRIPTION_WRITE_TRIES);
    expect(answer.status).toBe(409);
    expect((answer.body as { error: string }).error).toMatch(/changed by others/);
  });
});
