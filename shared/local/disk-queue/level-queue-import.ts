import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { z } from 'zod';
import type { LogQueueStore } from './log-queue-store.ts';

/** The attributes a message's key held in the LevelDB queue of earlier versions. */
const LevelMessageSchema = z.object({
  id: z.string(),
  md5: z.string(),
  sentAt: z.number(),
  /** Older stores kept the body here too. */
  body: z.string().optional(),
});

/** The names of a LevelDB database's files (but CURRENT). */
const LEVEL_FILE = /^(LOCK|LOG|LOG\.old|MANIFEST-\d+|\d+\.(log|ldb|sst|dbtmp))$/;

/** Bodies read from LevelDB at a time while moving a backlog. */
const BODIES_PER_READ = 500;

interface LevelMessage extends z.infer<typeof LevelMessageSchema> {
  queue: string;
  visibleAt: number;
}

/**
 * Moves the messages that earlier versions kept in one LevelDB database at `path` (a key
 * `<queue>!<visibleAt>!<order>!<state>` a message, its body under `<queue>#<id>`) into each
 * queue's log (`storeOf`), syncs those logs to the device, then deletes the database's files,
 * CURRENT first; where there is no database, does nothing but delete the files a deletion
 * stopped part way left. A message that
 * was in flight (state `f`) becomes visible from when it was sent, as the LevelDB queue released
 * it at open; a delayed one keeps its time. Should the process stop before CURRENT is deleted,
 * the next start moves the messages again (at least once, as SQS). Returns how many messages it
 * moved.
 */
export async function importLevelQueue(
  path: string,
  storeOf: (queue: string) => LogQueueStore,
  now: number,
): Promise<number> {
  if (!existsSync(join(path, 'CURRENT'))) {
    await removeFiles(path, LEVEL_FILE);
    return 0;
  }
  const db = new ClassicLevel<string, string>(path, { valueEncoding: 'utf8' });
  await db.open();
  const messages: LevelMessage[] = [];
  try {
    for await (const [key, value] of db.iterator()) {
      const [queue, visibleAt, , state] = key.split('!');
      if (queue === undefined || state === undefined || queue.includes('#')) continue;
      const message = LevelMessageSchema.parse(JSON.parse(value));
      const first = state === 'f' ? Math.min(message.sentAt, now) : Number(visibleAt);
      messages.push({ ...message, queue, visibleAt: first });
    }
    for (let start = 0; start < messages.length; start += BODIES_PER_READ) {
      const chunk = messages.slice(start, start + BODIES_PER_READ);
      const bodies = await db.getMany(chunk.map(({ queue, id }) => `${queue}#${id}`));
      // One write a queue for the chunk's messages, in their order.
      const byQueue = new Map<string, Array<Omit<LevelMessage, 'queue'> & { body: string }>>();
      chunk.forEach(({ queue, body, ...header }, index) => {
        const restored = byQueue.get(queue) ?? [];
        restored.push({ ...header, body: body ?? bodies[index] ?? '' });
        byQueue.set(queue, restored);
      });
      for (const [queue, restored] of byQueue) storeOf(queue).restore(restored);
    }
  } finally {
    await db.close();
  }
  // The moved messages reach the device before their database goes: a power loss may keep a
  // removal yet lose writes not synced before it, and these waited on disk (in LevelDB) for as
  // long as the backlog did.
  for (const queue of new Set(messages.map((message) => message.queue))) storeOf(queue).sync();
  // CURRENT goes first: without it there is no database, so a process stopped before the rest
  // are deleted leaves files no start opens (the next one deletes them); any other file gone
  // first would leave a database LevelDB refuses to open, and every start failing on it.
  await rm(join(path, 'CURRENT'));
  await removeFiles(path, LEVEL_FILE);
  return messages.length;
}

/** Deletes the files in `path` (not the folders: the queues' logs) whose names match `names`. */
async function removeFiles(path: string, names: RegExp): Promise<void> {
  const entries = await readdir(path, { withFileTypes: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile() && names.test(entry.name))
      .map((entry) => rm(join(path, entry.name))),
  );
}
