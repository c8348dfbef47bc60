import { describe, expect, it } from 'vitest';
import { packBatches, prepareWithinLimit } from '../../shared/publish/batch-packing.ts';
import { makeEvent } from './fixtures.ts';

const sized = (...sizes: number[]) => sizes.map((bytes, index) => ({ index, bytes }));

describe('packBatches', () => {
  it('keeps order and closes a batch at the entry limit or before the byte limit', () => {
    const batches = packBatches(sized(1, 1, 1, 5, 5, 2), 3, 10);
    expect(batches.map((batch) => batch.map((item) => item.index))).toEqual([
      [0, 1, 2],
      [3, 4],
      [5],
    ]);
  });

  it('fills a batch exactly to the byte limit', () => {
    expect(packBatches(sized(4, 6, 1), 10, 10).map((batch) => batch.length)).toEqual([2, 1]);
  });

  it('returns no batch for no entries', () => {
    expect(packBatches([], 10, 10)).toEqual([]);
  });
});

describe('prepareWithinLimit', () => {
  const build = (event: ReturnType<typeof makeEvent>) => {
    const entry = JSON.stringify(event);
    return { entry, bytes: Buffer.byteLength(entry) };
  };

  it('keeps an event that fits as it is', () => {
    const event = makeEvent(0);
    expect(prepareWithinLimit(event, 10_000, 'sqs', build)).toMatchObject({
      event,
      thinned: false,
      layer: 0,
    });
  });

  it('thins an event that fits only without previous and patch', () => {
    const event = makeEvent(0, { previousPadding: 20_000 });
    const prepared = prepareWithinLimit(event, 10_000, 'sqs', build);
    expect(prepared).toMatchObject({
      thinned: true,
      event: { id: event.id, data: { truncated: true } },
    });
    expect(event.data.previous).toBeDefined();
  });

  it('turns an event too large even when thin into an EventTooLarge failure', () => {
    const event = makeEvent(0, { currentPadding: 20_000 });
    expect(prepareWithinLimit(event, 10_000, 'sqs', build)).toMatchObject({
      eventId: event.id,
      target: 'sqs',
      code: 'EventTooLarge',
    });
  });
});
