import { describe, expect, it } from 'vitest';
import type { BackfillJobView } from '../../shared/admin/backfill.ts';
import { BackfillEstimates } from '../../shared/admin/backfill-estimates.ts';
import { streamTallies } from '../support/delivery-tallies.ts';
import { savePass, useDynamoBridges } from './support/dynamo-bridge.ts';

/**
 * `GET /backfill/{id}` measured the job over the history's time range: most of the five years
 * since 2021 hold no record, so it said 80 % with nothing read, and its time left ignored the
 * webhooks still to deliver. Now it measures records and webhooks, as `backfill` does.
 */
const bridge = useDynamoBridges('backfill-estimate');
const CUSTOMERS = 'hotel-1:customer';

describe('GET /backfill/{id} through the admin router on the local DynamoDB', () => {
  it('grows with the records read, not the empty years, and waits for the webhooks left', async () => {
    const { harness, deps, state, call } = await bridge();
    deps.backfillEstimates = new BackfillEstimates();
    // The customers' first sync read 10,000 records: about those the pass reads again.
    const synced = (await state.getStream(CUSTOMERS))!;
    await state.saveStream(
      {
        ...synced,
        firstSync: { doneAt: synced.lastSuccessAt ?? 0, recordsRead: 10_000, eventsPublished: 0 },
      },
      synced.version,
    );
    const started = await call('POST', '/backfill', {
      entities: ['customer'],
      connections: ['hotel-1'],
      emit: true,
    });
    expect(started.status).toBe(202);
    const { id, startedAt } = started.body as BackfillJobView;
    const read = async () => (await call('GET', `/backfill/${id}`)).body as BackfillJobView;
    const pass = (await state.getStream(CUSTOMERS))!.backfill;
    if (pass?.kind !== 'pass') throw new Error('the customers have no pass');
    const history = deps.windows.historyStartMs;
    const rangeAt = (share: number) =>
      new Date(history + (Date.parse(pass.endUtc) - history) * share).toISOString();

    // The empty years went by: 80 % of the range, no record read.
    await harness.clock.advance(2_000);
    await savePass(state, CUSTOMERS, { watermark: rangeAt(0.8) });
    const empty = await read();
    expect(empty.rangeFraction).toBeCloseTo(0.8, 2);
    expect(empty.fraction).toBe(0);
    expect(empty.streams[0]).toMatchObject({ fraction: 0, recordsExpected: 10_000 });

    // 5,000 records read and published in 10 s; each event goes to two subscriptions, and of
    // their 10,000 webhooks 1,000 are delivered.
    await harness.clock.advance(8_000);
    await savePass(state, CUSTOMERS, { recordsRead: 5_000, eventsPublished: 5_000 });
    await harness.deliveryCounter.add(
      streamTallies(CUSTOMERS, Date.parse(startedAt) + 1_000, {
        events: 5_000,
        created: 10_000,
        delivered: 1_000,
      }),
    );
    const half = await read();
    expect(half.rangeFraction).toBeCloseTo(0.8, 2);
    expect(half.readFraction).toBeCloseTo(0.5, 5);
    expect(half.webhooksPerEvent).toBe(2);
    expect(half).toMatchObject({ webhooksLeft: 9_000, eventsQueued: 0 });
    // Reading: 5,000 records left at 500 a second. Delivering: the 9,000 webhooks left and the
    // 10,000 of the 5,000 records to come, 1,000 of them in the 10 s of reading at 100
    // delivered a second, the 18,000 left then at √(100 × 1,000) ≈ 316 a second (the reading
    // makes 1,000 a second): 57 s more (190 s at the rate seen while reading).
    expect(half.readEtaSeconds).toBe(10);
    expect(half.deliveryRateAfterRead).toBe(316.2);
    expect(half.deliveryEtaSeconds).toBe(67);
    expect(half.etaSeconds).toBe(67);
    // Of all the work, the webhooks are the least done: 1,000 of 20,000.
    expect(half.fraction).toBeCloseTo(0.05, 5);

    // The reading is done; 4,000 webhooks of its 20,000 are left.
    await harness.clock.advance(40_000);
    await savePass(state, CUSTOMERS, {
      recordsRead: 10_000,
      eventsPublished: 10_000,
      watermark: pass.endUtc,
      doneAt: harness.clock.now(),
    });
    await harness.deliveryCounter.add(
      streamTallies(CUSTOMERS, Date.parse(startedAt) + 1_000, {
        events: 5_000,
        created: 10_000,
        delivered: 15_000,
      }),
    );
    const read10k = await read();
    expect(read10k).toMatchObject({ done: true, deliveryDone: false, webhooksLeft: 4_000 });
    expect(read10k.readEtaSeconds).toBe(0);
    // 15,000 delivered in the 40 s since the reading before, 375 a second: 4,000 take 11 s.
    expect(read10k.etaSeconds).toBe(11);
    expect(read10k.fraction).toBeCloseTo(16_000 / 20_000, 5);
  });
});
