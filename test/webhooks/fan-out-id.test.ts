import { describe, expect, it } from 'vitest';
import { hashEventId } from '../../shared/changes/event-id.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { eventIdOf } from './support/harness.ts';

describe('fanOutDeliveryId', () => {
  it('is the hash of event and subscription, asked once or many times, before and after its memory starts over', () => {
    const expected = (n: number, subscriptionId: string) =>
      `dlv_${hashEventId(['delivery/v1', eventIdOf(n), subscriptionId]).slice('evt_'.length)}`;
    expect(fanOutDeliveryId(eventIdOf(1), 'sub_1')).toBe(expected(1, 'sub_1'));
    expect(fanOutDeliveryId(eventIdOf(1), 'sub_1')).toBe(expected(1, 'sub_1'));
    expect(fanOutDeliveryId(eventIdOf(1), 'sub_2')).toBe(expected(1, 'sub_2'));
    // Pairs that would read the same if subscription and event were merely joined.
    expect(fanOutDeliveryId('c', 'a b')).toBe(
      `dlv_${hashEventId(['delivery/v1', 'c', 'a b']).slice(4)}`,
    );
    expect(fanOutDeliveryId('b c', 'a')).toBe(
      `dlv_${hashEventId(['delivery/v1', 'b c', 'a']).slice(4)}`,
    );
    expect(fanOutDeliveryId('1c', 'a')).toBe(
      `dlv_${hashEventId(['delivery/v1', '1c', 'a']).slice(4)}`,
    );
    expect(fanOutDeliveryId('c', 'a1')).toBe(
      `dlv_${hashEventId(['delivery/v1', 'c', 'a1']).slice(4)}`,
    );
    for (let n = 2; n < 10_000; n++) fanOutDeliveryId(eventIdOf(n), 'sub_1');
    expect(fanOutDeliveryId(eventIdOf(1), 'sub_1')).toBe(expected(1, 'sub_1'));
    expect(fanOutDeliveryId(eventIdOf(9_999), 'sub_1')).toBe(expected(9_999, 'sub_1'));
  });
});
