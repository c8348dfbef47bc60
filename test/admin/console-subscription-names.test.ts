import { describe, expect, it } from 'vitest';
import { subscriptionNames } from '../../shared/admin/console/subscription-actions.js';

describe('what the console names a subscription on its buttons', () => {
  it('names it by its URL, and by its id too where another subscription has the same URL', () => {
    const names = subscriptionNames([
      { id: 'sub_1', url: 'https://a.example/hook' },
      { id: 'sub_2', url: 'https://b.example/hook' },
      { id: 'sub_3', url: 'https://a.example/hook' },
    ]);
    expect([...names]).toEqual([
      ['sub_1', 'https://a.example/hook (sub_1)'],
      ['sub_2', 'https://b.example/hook'],
      ['sub_3', 'https://a.example/hook (sub_3)'],
    ]);
  });
});
