import { createRequire } from 'node:module';
import { resolveFromDynalite } from './dynalite-require.ts';

/** The part of an abstract-level iterator the iterator fix uses. */
interface ClosableIterator {
  close(): Promise<void>;
  return?: () => Promise<void>;
}

/** Open options of a classic-level database (the ones set here). */
export interface LevelOpenOptions {
  cacheSize?: number;
  writeBufferSize?: number;
  maxOpenFiles?: number;
  [option: string]: unknown;
}

interface OpenableLevel {
  _open(options: LevelOpenOptions): Promise<void>;
}

const MIB = 1024 * 1024;

/**
 * LevelDB options of the local run's databases where their owner sets none (dynalite sets none):
 * a 2 MB block cache and at most 100 tables open (each open table keeps its index and maps its
 * file into memory), where LevelDB's defaults (8 MB, 1,000) suit a server: with a 2 MB write
 * buffer beside them, they held about 15 MB less resident in a 100,000-event backfill. The write
 * buffer is LevelDB's own 4 MB: each buffer filled becomes a level-0 table, and the stored
 * snapshots' keys (entity ids) are random, so each table merged into level 1 rewrites most of
 * it. With 2 MB, LevelDB's compaction thread spent ~5.5 s of CPU in a first sync of 100,000
 * customers; 4 MB takes ~15 % of the bridge's CPU off that sync (188 against 223 µs a record on
 * average over alternating runs) for ≤ 7 MB more at peak (docs/benchmarks.md, cd11e1e).
 */
export const LOCAL_LEVELDB_DEFAULTS = {
  cacheSize: 2 * MIB,
  writeBufferSize: 4 * MIB,
  maxOpenFiles: 100,
} as const satisfies LevelOpenOptions;

/**
 * `options` with {@link LOCAL_LEVELDB_DEFAULTS} for what they leave unset. Pure.
 * @example withLocalLevelDefaults({ cacheSize: 1 }).writeBufferSize === 4 * 1024 * 1024
 */
export function withLocalLevelDefaults(options: LevelOpenOptions): LevelOpenOptions {
  return { ...LOCAL_LEVELDB_DEFAULTS, ...options };
}

/** Loads `name` as dynalite's `level` package resolves it (the copy dynalite really uses). */
function fromDynalitesLevel(name: 'classic-level' | 'abstract-level'): unknown {
  const fromLevel = createRequire(resolveFromDynalite('level'));
  if (name === 'classic-level') return fromLevel('classic-level');
  return createRequire(fromLevel.resolve('classic-level'))('abstract-level');
}

/**
 * Makes dynalite close the LevelDB iterator of every Query and Scan. dynalite (4.0) ends its
 * read streams by calling `iterator.return()`, which abstract-level 3 iterators do not have, so
 * each Query left its iterator open for the life of the process. An open iterator pins the
 * LevelDB version it reads: compacted table files are never deleted and stay memory-mapped, so
 * resident memory grew with every write (2.4 GB in a 100,000-event backfill, two thirds of it
 * file-backed mappings of obsolete tables). Adds `return()` (= `close()`) to the iterators of
 * the abstract-level copy that dynalite's `level` uses. Idempotent; a no-op if they have it.
 */
export function closeDynaliteIterators(): void {
  const { AbstractIterator } = fromDynalitesLevel('abstract-level') as {
    AbstractIterator: { prototype: object };
  };
  // The common base of entry, key and value iterators (abstract-level exports only the subclasses).
  const common = Object.getPrototypeOf(AbstractIterator.prototype) as ClosableIterator;
  if (typeof common.return === 'function') return;
  Object.defineProperty(common, 'return', {
    value: function close(this: ClosableIterator) {
      return this.close();
    },
    writable: true,
    configurable: true,
  });
}

const defaultsApplied = Symbol.for('change-bridge.localLevelDefaults');

/**
 * Opens every classic-level database of dynalite's copy with {@link withLocalLevelDefaults}
 * (dynalite passes no LevelDB options of its own). Idempotent.
 */
export function applyLocalLevelDefaults(): void {
  const { ClassicLevel } = fromDynalitesLevel('classic-level') as {
    ClassicLevel: { prototype: OpenableLevel & { [defaultsApplied]?: true } };
  };
  const prototype = ClassicLevel.prototype;
  if (prototype[defaultsApplied]) return;
  const open = prototype._open;
  prototype._open = function openWithLocalDefaults(this: OpenableLevel, options) {
    return open.call(this, withLocalLevelDefaults(options));
  };
  prototype[defaultsApplied] = true;
}

/** The reads of a classic-level database that {@link readLevelSynchronously} replaces. */
interface ReadableLevel {
  _get(key: unknown, options: unknown): Promise<unknown>;
  _getSync(key: unknown, options: unknown): unknown;
  _getMany(keys: readonly unknown[], options: unknown): Promise<unknown[]>;
  [syncReads]?: true;
}

const syncReads = Symbol.for('change-bridge.syncLevelReads');

/**
 * Makes every read of a classic-level database of dynalite's copy (dynalite's store) a
 * synchronous LevelDB read, still answered as a promise. An async read
 * hands each key to libuv's thread pool and back: a CPU profile of `change-bridge start` with
 * 1,000 connections spent 14 % of its main thread in that hand-off, for reads that LevelDB
 * answers from its memtable, its block cache or the OS page cache in microseconds (the local
 * run's data is small and was just written). A database read of a cold file blocks the loop
 * for that read. Writes stay asynchronous. Idempotent.
 */
export function readLevelSynchronously(): void {
  const { ClassicLevel } = fromDynalitesLevel('classic-level') as {
    ClassicLevel: { prototype: ReadableLevel };
  };
  const prototype = ClassicLevel.prototype;
  if (prototype[syncReads] || typeof prototype._getSync !== 'function') return;
  prototype._get = async function getSynchronously(this: ReadableLevel, key, options) {
    return this._getSync(key, options);
  };
  prototype._getMany = async function getManySynchronously(this: ReadableLevel, keys, options) {
    return keys.map((key) => this._getSync(key, options));
  };
  prototype[syncReads] = true;
}
