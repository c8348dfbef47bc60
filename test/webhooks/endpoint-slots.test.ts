import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../../shared/clock.ts';
import { DynamoDbEndpointSlots } from '../../shared/webhooks/dynamodb-endpoint-slots.ts';
import {
  type EndpointSlots,
  MemoryEndpointSlots,
  SLOT_HOLD_MS,
  shareSlots,
} from '../../shared/webhooks/endpoint-slots.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

describe('shareSlots', () => {
  const far = 10 ** 15;

  it('grants what the other holders leave free, at most what is asked for', () => {
    const holders = { a: { slots: 10, until: far } };
    expect(shareSlots(holders, 'b', 16, 16, 0).hold).toEqual({
      slots: 6,
      until: SLOT_HOLD_MS,
      wants: 16,
    });
    expect(shareSlots(holders, 'b', 4, 16, 0).hold.slots).toBe(4);
    expect(shareSlots({ a: { slots: 16, until: far } }, 'b', 4, 16, 0).hold.slots).toBe(0);
  });

  it('drops lapsed shares, and removes a holder that wants none', () => {
    const holders = { a: { slots: 16, until: 1000 }, b: { slots: 3, until: far } };
    const shared = shareSlots(holders, 'b', 0, 16, 1000);
    expect(shared.holders).toEqual({});
    expect(shareSlots(holders, 'c', 16, 16, 1000).holders).toEqual({
      b: { slots: 3, until: far },
      c: { slots: 8, until: 1000 + SLOT_HOLD_MS, wants: 16 },
    });
  });

  it('grants at most a fair part among the holders that want slots, and lists one granted none', () => {
    // Alone, a holder may take them all; a second one that wants some is listed with its want.
    const alone = shareSlots({}, 'a', 16, 16, 0);
    expect(alone.hold.slots).toBe(16);
    const waiting = shareSlots(alone.holders, 'b', 16, 16, 0);
    expect(waiting.hold).toEqual({ slots: 0, until: SLOT_HOLD_MS, wants: 16 });
    // When the first asks again (its next invocation, a renewal), it keeps half; then the
    // second gets the other half.
    const shrunk = shareSlots(waiting.holders, 'a', 16, 16, 1);
    expect(shrunk.hold.slots).toBe(8);
    expect(shareSlots(shrunk.holders, 'b', 16, 16, 2).hold.slots).toBe(8);
  });

  it('never grants fewer than the slots a holder has requests in flight on', () => {
    const holders = {
      a: { slots: 16, until: far, wants: 16 },
      b: { slots: 0, until: far, wants: 16 },
    };
    expect(shareSlots(holders, 'a', 16, 16, 0, SLOT_HOLD_MS, 16).hold.slots).toBe(16);
    expect(shareSlots(holders, 'a', 16, 16, 0, SLOT_HOLD_MS, 11).hold.slots).toBe(11);
    expect(shareSlots(holders, 'a', 16, 16, 0, SLOT_HOLD_MS, 0).hold.slots).toBe(8);
  });

  it('grants none when the maximum shrank below what others hold', () => {
    expect(shareSlots({ a: { slots: 16, until: far } }, 'b', 8, 4, 0).hold.slots).toBe(0);
  });

  it('changes nothing while an unchanged share has more than half its hold left', () => {
    const holders = { a: { slots: 8, until: SLOT_HOLD_MS } };
    expect(shareSlots(holders, 'a', 8, 16, 0).changed).toBe(false);
    expect(shareSlots(holders, 'a', 8, 16, SLOT_HOLD_MS / 2).changed).toBe(true);
    expect(shareSlots(holders, 'a', 9, 16, 0).changed).toBe(true);
    expect(shareSlots({}, 'a', 0, 16, 0).changed).toBe(false);
  });
});

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('endpoint-slots-test');
});
afterAll(async () => {
  await table?.stop();
});

const implementations: [string, (clock: ManualClock) => (holder: string) => EndpointSlots][] = [
  [
    'MemoryEndpointSlots',
    (clock) => {
      const slots = new MemoryEndpointSlots(clock);
      return (holder) => slots.holder(holder);
    },
  ],
  [
    'DynamoDbEndpointSlots (dynalite)',
    (clock) => (holder) =>
      new DynamoDbEndpointSlots({
        client: table.client,
        tableName: table.tableName,
        clock,
        random: seededRandom(holder.length),
        holder,
      }),
  ],
];

let endpointSeq = 0;

describe.each(implementations)('%s', (_name, create) => {
  it('never grants two holders more than the endpoint’s maximum together', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const holderOf = create(clock);
    const endpoint = `sub-${endpointSeq++}`;
    const a = await holderOf('a').hold(endpoint, 10, 16);
    const b = await holderOf('b').hold(endpoint, 10, 16);
    expect([a.slots, b.slots]).toEqual([10, 6]);
  });

  it('hands slots given back to the next holder that asks', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const holderOf = create(clock);
    const endpoint = `sub-${endpointSeq++}`;
    await holderOf('a').hold(endpoint, 16, 16);
    expect((await holderOf('b').hold(endpoint, 16, 16)).slots).toBe(0);
    expect((await holderOf('a').hold(endpoint, 0, 16)).slots).toBe(0);
    expect((await holderOf('b').hold(endpoint, 16, 16)).slots).toBe(16);
  });

  it('lets a share lapse when its holder does not renew it', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const holderOf = create(clock);
    const endpoint = `sub-${endpointSeq++}`;
    await holderOf('gone').hold(endpoint, 16, 16);
    await clock.advance(SLOT_HOLD_MS - 1);
    expect((await holderOf('b').hold(endpoint, 16, 16)).slots).toBe(0);
    await clock.advance(1);
    expect((await holderOf('b').hold(endpoint, 16, 16)).slots).toBe(16);
  });

  it('keeps the endpoints apart', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const holderOf = create(clock);
    await holderOf('a').hold(`sub-${endpointSeq}`, 16, 16);
    expect((await holderOf('b').hold(`sub-${endpointSeq + 1}`, 16, 16)).slots).toBe(16);
    endpointSeq += 2;
  });
});

describe('DynamoDbEndpointSlots', () => {
  it('grants eight holders asking at once no more than the maximum together (conditional writes)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const endpoint = `sub-${endpointSeq++}`;
    const holds = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        new DynamoDbEndpointSlots({
          client: table.client,
          tableName: table.tableName,
          clock: { now: () => clock.now(), sleep: async () => undefined },
          random: seededRandom(n + 1),
          holder: `h${n}`,
        }).hold(endpoint, 4, 16),
      ),
    );
    const granted = holds.map((hold) => hold.slots);
    expect(granted.reduce((sum, slots) => sum + slots, 0)).toBe(16);
    expect(granted.filter((slots) => slots === 4)).toHaveLength(4);
  });
});
