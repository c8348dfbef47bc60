import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { LevelQueueStore } from '../../shared/local/disk-queue/queue-store.ts';

const opened: Array<{ db: ClassicLevel<string, string>; dir: string }> = [];
afterEach(async () => {
  for (const { db, dir } of opened.splice(0)) {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});

async function openDb(): Promise<ClassicLevel<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'queue-store-'));
  const db = new ClassicLevel<string, string>(dir, { valueEncoding: 'utf8' });
  await db.open();
  opened.push({ db, dir });
  return db;
}

/** Holds the database's next batch write until the returned release is called. */
function holdNextBatch(db: ClassicLevel<string, string>): () => void {
  const batch = db.batch.bind(db) as (ops: unknown) => Promise<void>;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  (db as unknown as { batch: (ops: unknown) => Promise<void> }).batch = async (ops) => {
    if (!held) {
      held = true;
      await gate;
    }
    return batch(ops);
  };
  return release;
}

describe('LevelQueueStore', () => {
  it('finds a message whose send landed while a receive was scanning (no scan floor passes it)', async () => {
    const db = await openDb();
    const store = new LevelQueueStore(db, 'dispatch', new ManualClock());
    await store.open();
    const release = holdNextBatch(db);

    const sending = store.send([{ body: 'late', delaySeconds: 0 }]);
    expect(await store.receive(10, 30_000)).toEqual([]);
    release();
    await sending;

    const received = await store.receive(10, 30_000);
    expect(received.map((message) => message.body)).toEqual(['late']);
  });

  it('hands out messages in the order they become visible and skips those still delayed', async () => {
    const db = await openDb();
    const clock = new ManualClock();
    const store = new LevelQueueStore(db, 'dispatch', clock);
    await store.open();
    await store.send([
      { body: 'later', delaySeconds: 5 },
      { body: 'now', delaySeconds: 0 },
    ]);

    expect((await store.receive(10, 30_000)).map((m) => m.body)).toEqual(['now']);
    await clock.advance(5_000);
    expect((await store.receive(10, 30_000)).map((m) => m.body)).toEqual(['later']);
  });

  it('delivers and deletes a message an older store kept with its body beside its attributes', async () => {
    const db = await openDb();
    const clock = new ManualClock(5_000);
    const older = { id: 'm-old', body: '{"old":true}', md5: 'x', sentAt: 1, receiveCount: 0 };
    await db.put(
      `dispatch!${String(1_000).padStart(15, '0')}!${'0'.repeat(24)}!q`,
      JSON.stringify({ ...older, firstReceiveAt: 0 }),
    );
    const store = new LevelQueueStore(db, 'dispatch', clock);
    await store.open();
    const [received] = await store.receive(10, 30_000);
    expect(received).toMatchObject({ id: 'm-old', body: '{"old":true}', receiveCount: 1 });
    await clock.advance(30_001);
    const [again] = await store.receive(10, 30_000);
    expect(again?.body).toBe('{"old":true}');
    expect(await store.delete([again!.receiptHandle])).toBe(1);
    expect(await db.keys().all()).toEqual([]);
  });

  it('hands a message left in flight by a process that is gone out again in its first place, before later ones', async () => {
    const db = await openDb();
    const clock = new ManualClock(1_000);
    const before = new LevelQueueStore(db, 'dispatch', clock);
    await before.open();
    await before.send([{ body: 'first', delaySeconds: 0 }]);
    await clock.advance(10);
    await before.send([{ body: 'second', delaySeconds: 0 }]);
    await clock.advance(10);
    expect((await before.receive(1, 180_000)).map((m) => m.body)).toEqual(['first']);

    // A restart: the new process releases what the old one had in flight.
    await clock.advance(10);
    const after = new LevelQueueStore(db, 'dispatch', clock);
    await after.open();
    expect((await after.receive(10, 30_000)).map((m) => m.body)).toEqual(['first', 'second']);
  });
});
