import { describe, expect, it } from 'vitest';
import { type CatchUpCandidate, CatchUpSlots } from '../../shared/polling/catch-up-slots.ts';

const stream = (streamId: string): CatchUpCandidate => ({
  streamId,
  connectionId: streamId.slice(0, 1),
});

/** A loop of `concurrency` slots that starts every stream it is given, as startPollLoop does. */
function loopOf(slots: CatchUpSlots, concurrency: number, running: string[] = []) {
  const runs = new Set(running);
  const started: string[] = [];
  return {
    started,
    full: () => runs.size >= concurrency,
    isRunning: (streamId: string) => runs.has(streamId),
    start: (definition: CatchUpCandidate) => {
      runs.add(definition.streamId);
      started.push(definition.streamId);
      slots.take(definition);
    },
  };
}

describe('catch-up slots', () => {
  it('start one stream of each connection before a second of any, in waiting order', () => {
    const slots = new CatchUpSlots(128);
    const loop = loopOf(slots, 128);
    const left = slots.startInTurn(['a1', 'a2', 'a3', 'b1', 'c1', 'c2'].map(stream), loop);
    expect(loop.started).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(left).toEqual([]);
  });

  it('stop at the catch-up share and leave the rest waiting in their order', () => {
    const slots = new CatchUpSlots(8);
    expect(slots.limit).toBe(2);
    const loop = loopOf(slots, 8);
    const left = slots.startInTurn(['a1', 'a2', 'a3', 'b1', 'c1', 'c2'].map(stream), loop);
    expect(loop.started).toEqual(['a1', 'b1']);
    expect(left.map((s) => s.streamId)).toEqual(['a2', 'a3', 'c1', 'c2']);
    expect(slots.hasFree()).toBe(false);
  });

  it('stop when the loop has no slot left, catch-up slots free or not', () => {
    const slots = new CatchUpSlots(128);
    const loop = loopOf(slots, 3, ['live-1', 'live-2']);
    const left = slots.startInTurn(['a1', 'b1', 'c1'].map(stream), loop);
    expect(loop.started).toEqual(['a1']);
    expect(left.map((s) => s.streamId)).toEqual(['b1', 'c1']);
    expect(slots.hasFree()).toBe(true);
  });

  it('give a connection holding a slot its next one after every other waiting connection had one', () => {
    const slots = new CatchUpSlots(128);
    slots.take(stream('a1'));
    const loop = loopOf(slots, 128, ['a1']);
    slots.startInTurn(['a2', 'b1', 'b2'].map(stream), loop);
    expect(loop.started).toEqual(['b1', 'a2', 'b2']);
  });

  it('drop the waiting streams that already run', () => {
    const slots = new CatchUpSlots(8);
    const loop = loopOf(slots, 8, ['a1']);
    const left = slots.startInTurn(['a1', 'b1', 'c1', 'd1'].map(stream), loop);
    expect(loop.started).toEqual(['b1', 'c1']);
    expect(left.map((s) => s.streamId)).toEqual(['d1']);
  });

  it('drop a stream the loop could not start, and give its connection’s next the turn', () => {
    const slots = new CatchUpSlots(128);
    const started: string[] = [];
    const left = slots.startInTurn(['a1', 'a2', 'b1'].map(stream), {
      full: () => false,
      isRunning: () => false,
      start: (definition) => {
        if (definition.streamId === 'a1') return;
        started.push(definition.streamId);
        slots.take(definition);
      },
    });
    expect(started).toEqual(['a2', 'b1']);
    expect(left).toEqual([]);
  });

  it('free a slot when a holder’s run ends, and none for a stream that held none', () => {
    const slots = new CatchUpSlots(8);
    slots.take(stream('a1'));
    slots.take(stream('a2'));
    expect(slots.hasFree()).toBe(false);
    slots.free(stream('b1'));
    expect(slots.hasFree()).toBe(false);
    slots.free(stream('a1'));
    expect(slots.hasFree()).toBe(true);
    // Connection a holds one slot again: b's stream goes first in the next round.
    const loop = loopOf(slots, 8, ['a2']);
    slots.startInTurn(['a3', 'b1'].map(stream), loop);
    expect(loop.started).toEqual(['b1']);
  });

  it('keep the reserve free of live streams only while catch-ups wait, less those running', () => {
    const slots = new CatchUpSlots(128);
    expect(slots.keptFree(true)).toBe(4);
    expect(slots.keptFree(false)).toBe(0);
    slots.take(stream('a1'));
    expect(slots.keptFree(true)).toBe(3);
    for (const id of ['b1', 'c1', 'd1', 'e1']) slots.take(stream(id));
    expect(slots.keptFree(true)).toBe(0);
  });

  it('keep no reserve in a loop of one slot, where live streams and catch-ups share it', () => {
    const slots = new CatchUpSlots(1);
    expect(slots.limit).toBe(1);
    expect(slots.keptFree(true)).toBe(0);
  });
});
