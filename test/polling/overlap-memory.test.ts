import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityRecord } from '../../shared/changes/entity-types.ts';
import { ManualClock } from '../../shared/clock.ts';
import {
  OverlapMemory,
  recordFingerprint,
  textFingerprint,
} from '../../shared/polling/overlap-memory.ts';
import { WindowOverlap } from '../../shared/polling/overlap-screen.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { awkwardRecord } from '../changes/canonical-records.ts';
import { type CustomerStream, customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

const prints = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([id, print]) => [id, { print, updatedMs: 0 }]));
/** A record's version as a window remembers it. */
const version = (record: { UpdatedUtc: string }) => ({
  print: recordFingerprint(record),
  updatedMs: Date.parse(record.UpdatedUtc),
});

describe('OverlapMemory', () => {
  it('gives back what a window stored only to the window starting from its watermark', () => {
    const memory = new OverlapMemory();
    memory.remember('s', '2026-03-10T09:00:05.000Z', prints({ a: 'p1' }));
    expect(memory.recall('s', '2026-03-10T09:00:05.000Z')?.get('a')?.print).toBe('p1');
    expect(memory.recall('s', '2026-03-10T09:00:04.000Z')).toBeUndefined();
    expect(memory.recall('s', null)).toBeUndefined();
    expect(memory.recall('other', '2026-03-10T09:00:05.000Z')).toBeUndefined();
    memory.forget('s');
    expect(memory.recall('s', '2026-03-10T09:00:05.000Z')).toBeUndefined();
    expect(memory.entries).toBe(0);
  });

  it('keeps at most its bounds per stream and in all', () => {
    const memory = new OverlapMemory({ maxEntriesPerStream: 2, maxEntries: 3 });
    memory.remember('s1', 'w', prints({ a: '1', b: '2', c: '3' }));
    expect(memory.recall('s1', 'w')?.size).toBe(2);
    memory.remember('s2', 'w', prints({ a: '1', b: '2' }));
    expect(memory.recall('s2', 'w')?.size).toBe(1);
    expect(memory.entries).toBe(3);
    // Remembering a stream again gives back what it held before.
    memory.remember('s1', 'w2', prints({ a: '1' }));
    expect(memory.entries).toBe(2);
  });

  it('fingerprints the whole record, UpdatedUtc included', () => {
    const record = { Id: 'c1', Notes: 'x', UpdatedUtc: '2026-03-10T09:00:00Z' } as EntityRecord;
    expect(recordFingerprint({ ...record })).toBe(recordFingerprint(record));
    expect(recordFingerprint({ ...record, UpdatedUtc: '2026-03-10T09:00:01Z' })).not.toBe(
      recordFingerprint(record),
    );
    expect(recordFingerprint({ ...record, Notes: 'y' })).not.toBe(recordFingerprint(record));
  });

  it('is the SHA-256 of the JSON text as sent, whatever its characters, key order and numbers', () => {
    const sent = JSON.parse(JSON.stringify(awkwardRecord())) as unknown;
    const reordered = JSON.parse('{"b":1,"a":{"d":[1.5e300,-0,"\\u0000\\ud800é"],"c":null}}');
    for (const record of [sent, reordered, { ...(sent as object), Notes: 'é😀\udc00' }]) {
      expect(recordFingerprint(record)).toBe(
        createHash('sha256').update(JSON.stringify(record)).digest('base64'),
      );
    }
    // Key order is part of the text: the same members in another order are another text.
    expect(recordFingerprint({ a: 1, b: 2 })).not.toBe(recordFingerprint({ b: 2, a: 1 }));
  });
});

describe('WindowOverlap', () => {
  const window = {
    startUtc: '2026-03-10T08:59:50.000Z',
    endUtc: '2026-03-10T09:00:00.000Z',
    cursor: null,
    count: 1000,
    pages: 0,
  };
  const record = (id: string, updatedUtc: string) => ({ Id: id, UpdatedUtc: updatedUtc });
  /** A window's overlap recalling each record's version under its Id, and its memory. */
  const recalling = (...records: Array<{ Id: string; UpdatedUtc: string }>) => {
    const memory = new OverlapMemory();
    const recalled = new Map(records.map((stored) => [stored.Id, version(stored)]));
    return { memory, overlap: new WindowOverlap(memory, recalled, window, 5_000, 'customer') };
  };

  it('keeps only records the next window can read again, within the bound per stream', () => {
    const memory = new OverlapMemory({ maxEntriesPerStream: 2 });
    const overlap = new WindowOverlap(memory, undefined, window, 5_000, 'customer');
    const screen = overlap.pageScreen();
    const kept = screen.screen([
      record('old', '2026-03-10T08:59:54.999Z'),
      record('a', '2026-03-10T08:59:55.000Z'),
      record('b', '2026-03-10T08:59:59.000Z'),
      record('c', '2026-03-10T09:00:01.000Z'),
    ]);
    expect(kept).toHaveLength(4);
    expect(screen.keep.map(([id]) => id)).toEqual(['a', 'b', 'c']);
    overlap.keepStored(screen);
    overlap.commit('s', window.endUtc);
    expect([...(memory.recall('s', window.endUtc)?.keys() ?? [])]).toEqual(['a', 'b']);
  });

  it('passes over a recalled record only when its fingerprint is the same', () => {
    const memory = new OverlapMemory();
    const same = record('a', '2026-03-10T08:59:56.000Z');
    const recalled = new Map([
      ['a', version(same)],
      ['b', version(record('b', '2026-03-10T08:59:56.000Z'))],
    ]);
    const overlap = new WindowOverlap(memory, recalled, window, 5_000, 'customer');
    const screen = overlap.pageScreen();
    const kept = screen.screen([{ ...same }, record('b', '2026-03-10T08:59:57.000Z')]);
    expect(kept).toEqual([record('b', '2026-03-10T08:59:57.000Z')]);
    expect(screen.passedOver).toBe(1);
    // Counted once the page is stored.
    expect(memory.passedOver).toBe(0);
    overlap.keepStored(screen);
    expect(memory.passedOver).toBe(1);
  });

  it('passes over nothing of an id the page holds twice, nor a record without an id', () => {
    const memory = new OverlapMemory();
    const twice = record('a', '2026-03-10T08:59:56.000Z');
    const recalled = new Map([['a', version(twice)]]);
    const overlap = new WindowOverlap(memory, recalled, window, 5_000, 'customer');
    const screen = overlap.pageScreen();
    const items = [twice, { ...twice }, { UpdatedUtc: '2026-03-10T08:59:56.000Z' }, 'not a record'];
    expect(screen.screen(items)).toEqual(items);
    expect(screen.passedOver).toBe(0);
  });

  it('passes over a page whose every record is, byte for byte, one stored before, from its text', () => {
    const early = record('a', '2026-03-10T08:59:54.000Z');
    const late = record('b', '2026-03-10T08:59:56.000Z');
    const { memory, overlap } = recalling(early, late);
    const screen = overlap.pageScreen();
    const text = JSON.stringify({ Customers: [late, early], Cursor: 'next' });
    expect(screen.screenText(text, 'Customers')).toEqual({
      text: '{"Customers":[],"Cursor":"next"}',
      passedOver: 2,
    });
    expect(screen.passedOver).toBe(2);
    expect(screen.screenedAsText).toBe(true);
    // Kept for the next window only where it can read the record again, as a parsed page is.
    expect(screen.keep).toEqual([['b', version(late)]]);
    overlap.keepStored(screen);
    expect([memory.passedOver, memory.passedOverAsText]).toEqual([2, 2]);
    overlap.commit('s', window.endUtc);
    expect([...(memory.recall('s', window.endUtc)?.keys() ?? [])]).toEqual(['b']);
  });

  it('leaves a page to be parsed when one record is not one stored before, byte for byte', () => {
    const a = record('a', '2026-03-10T08:59:56.000Z');
    const b = record('b', '2026-03-10T08:59:57.000Z');
    const { memory, overlap } = recalling(a, b);
    const page = (...items: unknown[]) => JSON.stringify({ Customers: items, Cursor: null });
    const cases = [
      page(a, { ...b, UpdatedUtc: '2026-03-10T08:59:58.000Z' }),
      page(a, { Id: 'c', UpdatedUtc: b.UpdatedUtc }),
      // The same record written with other whitespace or member order is other bytes.
      JSON.stringify({ Customers: [a, b] }, null, 1),
      page(a, { UpdatedUtc: b.UpdatedUtc, Id: 'b' }),
      // An entity twice: the parsed page's rule (none of them passed over) decides.
      page(a, a),
      page(a, 'b'),
    ];
    for (const text of cases) {
      const screen = overlap.pageScreen();
      expect(screen.screenText(text, 'Customers')).toBeUndefined();
      expect(screen.screenedAsText).toBe(false);
    }
    // Nothing recalled: nothing to pass over.
    const fresh = new WindowOverlap(memory, undefined, window, 5_000, 'customer').pageScreen();
    expect(fresh.screenText(page(a), 'Customers')).toBeUndefined();
  });

  it("passes over a version remembered from a parsed record, and keeps the page's texts' fingerprints, so the next window passes over text JSON.stringify would write otherwise", () => {
    const a = record('a', '2026-03-10T08:59:56.000Z');
    const b = record('b', '2026-03-10T08:59:57.000Z');
    const { memory, overlap } = recalling(a);
    // A connector writing spaces: each record's text is not JSON.stringify's of it.
    const text = JSON.stringify({ Customers: [a, b], Cursor: null }, null, 1);
    const screen = overlap.pageScreen();
    expect(screen.screenText(text, 'Customers')).toBeUndefined();
    const items = (JSON.parse(text) as { Customers: unknown[] }).Customers;
    // `a` was remembered from a record written out (no text read then): still the same version.
    expect(screen.screen(items)).toEqual([b]);
    expect(screen.passedOver).toBe(1);
    const texts = [JSON.stringify(a, null, 1), JSON.stringify(b, null, 1)].map((t) =>
      t.replaceAll('\n', '\n  '),
    );
    expect(screen.keep.map(([id, kept]) => [id, kept.print])).toEqual([
      ['a', textFingerprint(texts[0]!)],
      ['b', textFingerprint(texts[1]!)],
    ]);
    overlap.keepStored(screen);
    overlap.commit('s', window.endUtc);
    const next = new WindowOverlap(
      memory,
      memory.recall('s', window.endUtc),
      window,
      5_000,
      'customer',
    );
    expect(next.pageScreen().screenText(text, 'Customers')?.passedOver).toBe(2);
  });

  it('judges a record whose text and whose written form are both another version', () => {
    const a = record('a', '2026-03-10T08:59:56.000Z');
    const changed = { ...a, Notes: 'changed' };
    const { overlap } = recalling(a);
    const text = JSON.stringify({ Customers: [changed], Cursor: null }, null, 1);
    const screen = overlap.pageScreen();
    expect(screen.screenText(text, 'Customers')).toBeUndefined();
    expect(screen.screen([changed])).toEqual([changed]);
    expect(screen.passedOver).toBe(0);
  });

  it('never passes over from text a fingerprint two recalled entities share', () => {
    const memory = new OverlapMemory();
    const a = record('a', '2026-03-10T08:59:56.000Z');
    const recalled = new Map([
      ['a', version(a)],
      ['b', version(a)],
    ]);
    const screen = new WindowOverlap(memory, recalled, window, 5_000, 'customer').pageScreen();
    expect(screen.screenText(JSON.stringify({ Customers: [a] }), 'Customers')).toBeUndefined();
  });

  it('screening a response again replaces what it noted (a retried request)', () => {
    const memory = new OverlapMemory();
    const overlap = new WindowOverlap(memory, undefined, window, 5_000, 'customer');
    const screen = overlap.pageScreen();
    screen.screen([record('a', '2026-03-10T08:59:56.000Z')]);
    screen.screen([record('b', '2026-03-10T08:59:56.000Z')]);
    expect(screen.keep.map(([id]) => id)).toEqual(['b']);
  });
});

describe('a windowed poll with an overlap memory', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const store = new MemoryStateStore();
  const memory = new OverlapMemory();
  let sim: RunningSimulator;
  let stream: CustomerStream;
  let deps: PollDeps;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: 'small', clock, rateLimit: false });
    stream = customerStream(sim, clock, store, 10);
    deps = { ...stream.deps, overlapMemory: memory };
  });
  afterAll(async () => {
    await stream.client.close();
    await sim.close();
  });

  /** One poll 2 s later: well inside the 5-second overlap of the one before. */
  async function poll() {
    await clock.advance(2_000);
    const outcome = await pollStream(stream.definition, deps, 'poller');
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
  }

  const published = () => stream.deps.publisher.events;

  it('passes over a burst re-read unchanged, and still sees a change that kept its UpdatedUtc', async () => {
    await poll();
    expect(published()).toHaveLength(0);
    const model = sim.controls.model;
    const ids = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, 25)
      .map((entry) => entry.record.Id);
    for (const [i, id] of ids.entries())
      model.update(model.customers, 'customer', id, { Notes: `burst ${i}` });

    await poll();
    expect(
      published()
        .map((event) => event.subject)
        .sort(),
    ).toEqual([...ids].sort());
    expect(memory.passedOver).toBe(0);

    // The next poll reads the burst again (overlap): nothing to judge, nothing published, and
    // its pages (each record as stored before) not even parsed.
    await poll();
    expect(published()).toHaveLength(25);
    expect(memory.passedOver).toBe(25);
    expect(memory.passedOverAsText).toBe(25);

    // A record whose content changes while its UpdatedUtc stays (the fingerprint is of the
    // whole record, not of its id and time) is judged, and its change published.
    const changed = model.customers.get(ids[0]!)!.record as { Notes: string | null };
    changed.Notes = 'changed, same UpdatedUtc';
    await poll();
    expect(published()).toHaveLength(26);
    expect(published().at(-1)).toMatchObject({ type: 'customer.updated', subject: ids[0] });
    expect(memory.passedOver).toBe(25 + 24);
    // The page that holds the changed record is parsed; the others are passed over as text.
    expect(memory.passedOverAsText).toBeGreaterThan(25);
    expect(memory.passedOverAsText).toBeLessThan(25 + 24);
  });

  it('judges everything again when the stream state is not the one its last window committed', async () => {
    const model = sim.controls.model;
    const [id] = [...model.customers.all()]
      .filter((e) => e.record.IsActive)
      .map((e) => e.record.Id);
    model.update(model.customers, 'customer', id!, { Notes: 'one more' });
    await poll();
    const passed = memory.passedOver;
    // Another writer moves the watermark (a backfill's reset, another poller): the memory of
    // this process no longer describes what is stored.
    const state = (await store.getStream(stream.definition.streamId))!;
    await store.saveStream(
      { ...state, watermark: new Date(clock.now() - 3_000).toISOString() },
      state.version,
    );
    await poll();
    // The record was read again, and judged.
    const after = (await store.getStream(stream.definition.streamId))!;
    expect(after.recordsRead ?? 0).toBeGreaterThan(state.recordsRead ?? 0);
    expect(memory.passedOver).toBe(passed);
  });
});
