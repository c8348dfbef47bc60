import { describe, expect, it } from 'vitest';
import { DispatchEnvelopeSchema } from '../../shared/webhooks/messages.ts';

describe('dispatch messages', () => {
  it('parse an event to the fields the dispatcher reads, leaving its records in the raw body', () => {
    const detail = {
      specversion: '1.0',
      id: 'evt_1',
      type: 'customer.updated',
      source: 'connector/main',
      subject: 'c-1',
      data: {
        entityType: 'customer',
        scope: { chainId: 'ch-1', extra: 1 },
        changedFields: ['Email'],
        current: { Id: 'c-1', Email: 'new@example.com' },
        previous: { Id: 'c-1', Email: 'old@example.com' },
        patch: [{ op: 'replace', path: '/Email', value: 'new@example.com' }],
      },
    };
    const parsed = DispatchEnvelopeSchema.parse({
      version: '0',
      'detail-type': 'customer.updated',
      source: 'change-bridge',
      detail,
    });
    expect(parsed).toMatchObject({
      detail: {
        id: 'evt_1',
        type: 'customer.updated',
        source: 'connector/main',
        subject: 'c-1',
        data: { scope: { chainId: 'ch-1' }, changedFields: ['Email'] },
      },
    });
    expect(parsed).not.toHaveProperty('detail.data.current');
    expect(parsed).not.toHaveProperty('detail.data.previous');
    expect(parsed).not.toHaveProperty('detail.data.patch');
  });
});
