import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { gate, LOOKUPS_AT_ONCE_MAX } from '../../shared/dns/lookup-gate.ts';
import { gatedResolver } from '../../shared/dns/system-resolver.ts';

/*
 * getaddrinfo runs on libuv's threadpool (4 threads), beside the local store's LevelDB. A
 * lookup that hangs (a receiver's DNS server that does not answer) holds its thread and cannot
 * be cancelled. Here each "lookup" opens a FIFO that no one writes: a real threadpool thread
 * held until the test opens the other end, as a hanging getaddrinfo holds one.
 */

let folder: string | undefined;
const fifos: string[] = [];

/** A lookup that holds a threadpool thread until {@link releaseLookups}. */
function hangingLookup(): Parameters<typeof gatedResolver>[0] {
  return (async (hostname: string) => {
    folder ??= mkdtempSync(join(tmpdir(), 'lookup-gate-'));
    const fifo = join(folder, `${hostname}.fifo`);
    execFileSync('mkfifo', [fifo]);
    fifos.push(fifo);
    const handle = await open(fifo, 'r');
    await handle.close();
    return [{ address: '192.0.2.1', family: 4 }];
  }) as unknown as Parameters<typeof gatedResolver>[0];
}

/**
 * Opens the writing end of every FIFO a reader waits on, freeing the threads it held. A FIFO
 * whose reader has not opened it yet (its lookup's thread not started, on a loaded machine) is
 * kept for the next call: dropping it would leave that reader waiting for ever.
 */
function releaseLookups(): void {
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENXIO') fifos.push(fifo);
    }
  }
}

/** Frees lookups as they come to wait until every one of `lookups` has settled. */
async function releaseUntilSettled<T>(lookups: readonly Promise<T>[]): Promise<T[]> {
  let settled = false;
  const all = Promise.all(lookups).finally(() => {
    settled = true;
  });
  while (!settled) {
    releaseLookups();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return all;
}

/**
 * Whether a LevelDB put ends while the lookups still hang: waits for it up to `waitMs`, then
 * frees the lookups (a put that needed their threads ends only then).
 */
async function writtenWhileLookupsHang(db: ClassicLevel, waitMs: number): Promise<boolean> {
  const done = db.put('k', 'v').then(() => true);
  const late = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), waitMs));
  const written = await Promise.race([done, late]);
  releaseLookups();
  await done;
  return written;
}

afterEach(() => {
  releaseLookups();
  fifos.length = 0;
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

describe.skipIf(process.platform === 'win32')('system host lookups at once', () => {
  it(`hold at most ${LOOKUPS_AT_ONCE_MAX} threadpool threads: the store writes while four receivers' DNS hangs`, async () => {
    folder = mkdtempSync(join(tmpdir(), 'lookup-gate-'));
    const db = new ClassicLevel(join(folder, 'store'));
    await db.open();
    const resolve = gatedResolver(hangingLookup(), gate(LOOKUPS_AT_ONCE_MAX));
    const lookups = ['a', 'b', 'c', 'd'].map((host) => resolve(`${host}.test`));
    // Each waiting lookup has its thread by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const written = await writtenWhileLookupsHang(db, 5_000);
    await db.close();
    expect(written).toBe(true);
    // The lookups waiting at the gate run once the first have ended: none is lost.
    expect(await releaseUntilSettled(lookups)).toHaveLength(4);
  });

  it('run in the order asked, the next one as soon as one ends, failed or not', async () => {
    const runs = gate(2);
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    const work = (name: string, fails = false) =>
      runs(async () => {
        started.push(name);
        await new Promise<void>((resolve) => ends.set(name, resolve));
        if (fails) throw new Error(name);
        return name;
      });
    const a = work('a', true);
    const b = work('b');
    const c = work('c');
    const d = work('d');
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    ends.get('a')!();
    await expect(a).rejects.toThrow('a');
    expect(started).toEqual(['a', 'b', 'c']);
    ends.get('b')!();
    await b;
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    ends.get('c')!();
    ends.get('d')!();
    expect(await Promise.all([c, d])).toEqual(['c', 'd']);
  });

  it('make no lookup whose caller stopped while it waited for its place', async () => {
    const asked: string[] = [];
    const ends: (() => void)[] = [];
    const lookup = ((hostname: string) => {
      asked.push(hostname);
      return new Promise((resolve) =>
        ends.push(() => resolve([{ address: '192.0.2.1', family: 4 }])),
      );
    }) as unknown as Parameters<typeof gatedResolver>[0];
    const resolve = gatedResolver(lookup, gate(1));
    const first = resolve('first.test');
    const stop = new AbortController();
    const queued = resolve('queued.test', stop.signal).catch((error: unknown) => error);
    stop.abort(new Error('stopping'));
    ends[0]!();
    expect(await first).toEqual([{ address: '192.0.2.1', family: 4 }]);
    expect(((await queued) as Error).message).toBe('stopping');
    expect(asked).toEqual(['first.test']);
    // Its place is freed: the next lookup runs.
    const next = resolve('next.test');
    await Promise.resolve();
    ends[1]!();
    expect(await next).toHaveLength(1);
  });
});
