import { describe, expect, it } from 'vitest';
import { stillDeadLettered } from '../../shared/admin/console/dead-letters.js';

function entry(id: string, eventId: string, status: string) {
  return { delivery: { id, eventId, subscriptionId: 'sub_1', status }, attempts: [] };
}

describe('the dead letters the console lists for a subscription', () => {
  it('lists the dead deliveries, newest first, but not one whose event was delivered again since', () => {
    const newestFirst = [
      entry('dlv_5', 'evt_a', 'delivered'),
      entry('dlv_4', 'evt_b', 'dead'),
      entry('dlv_3', 'evt_c', 'pending'),
      entry('dlv_2', 'evt_a', 'dead'),
      entry('dlv_1', 'evt_d', 'dead'),
    ];
    expect(stillDeadLettered(newestFirst).map((e) => e.delivery.id)).toEqual(['dlv_4', 'dlv_1']);
  });

  it('lists the newest of two dead deliveries of one event once', () => {
    const newestFirst = [entry('dlv_2', 'evt_a', 'dead'), entry('dlv_1', 'evt_a', 'dead')];
    expect(stillDeadLettered(newestFirst).map((e) => e.delivery.id)).toEqual(['dlv_2']);
  });
});
