import { constants } from 'node:fs';
import { access, chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { configurationError } from '../configuration-error.ts';
import { LOCAL_KEY_FILE_NAME } from '../connections/local-key-file.ts';

/** What a failed `mkdir` of the data dir says about the path the user gave. */
const UNUSABLE_PATH: Readonly<Record<string, string>> = {
  EEXIST: 'is a file, not a directory',
  ENOTDIR: 'has a file where a parent directory should be',
  EACCES: 'cannot be created or written (permission denied)',
  EPERM: 'cannot be created or written (operation not permitted)',
  EROFS: 'is on a read-only file system',
  ENOENT: 'cannot be created there (its file system takes no new directories)',
};

/**
 * The data dir's mode: its owner's alone. It holds every subscription's signing secret and the
 * stored snapshots (guest data) in clear, in files LevelDB makes readable to all (0644).
 */
export const DATA_DIR_MODE = 0o700;

/** The folder of the data dir that holds the local DynamoDB (dynalite's LevelDB). */
export const STORE_FOLDER = 'dynamodb';
/** The folder of the data dir that holds the dispatch queue's log files. */
export const QUEUE_FOLDER = 'queue';

/** What `start` keeps in a data dir: one holding any of them is the bridge's own. */
const DATA_DIR_CONTENTS = [STORE_FOLDER, QUEUE_FOLDER, LOCAL_KEY_FILE_NAME];

/**
 * The data dir's folders whose files hold secrets or guest data in clear (the store: every
 * subscription's signing secret and the snapshots; the queue: the events' payloads), made by
 * LevelDB and the queue readable to all: closed to others themselves, for a data dir left open
 * because it holds other things (a project folder).
 */
const PRIVATE_FOLDERS = [STORE_FOLDER, QUEUE_FOLDER];

/**
 * Creates the data dir (and its parents) if missing, for its owner alone
 * ({@link DATA_DIR_MODE}); one that other users may enter is closed to them when it is empty or
 * the bridge's own (made by an earlier release), and left as it is when it holds other things.
 * A path that cannot be a directory, or a directory this process may not write (read-only, or
 * another user's), is bad input, named by its flag and variable (exit 2), not a raw `EEXIST`
 * or `EACCES`.
 * @example await ensureDataDir('.bridge')
 */
export async function ensureDataDir(dataDir: string): Promise<void> {
  try {
    await makeDirs(resolve(dataDir), DATA_DIR_MODE);
  } catch (error) {
    throw unusable(dataDir, error);
  }
  await closeToOthers(dataDir);
  // An existing dir this process may not write fails here, named as the one it cannot create,
  // not at the lock's file with a raw EACCES.
  try {
    await access(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw unusable(dataDir, error);
  }
}

/**
 * Creates the data dir's store and queue folders for their owner alone, or closes them to
 * others where they exist open ({@link PRIVATE_FOLDERS}), even in a data dir left open because
 * it holds other things. Called once the data dir's lock is held: a `start` refused for a data
 * dir in use leaves it as it found it.
 * @example await closePrivateFolders('.bridge')
 */
export async function closePrivateFolders(dataDir: string): Promise<void> {
  for (const folder of PRIVATE_FOLDERS) await closeFolder(join(dataDir, folder));
}

/**
 * Creates `folder` for its owner alone ({@link DATA_DIR_MODE}), or closes it to others when it
 * exists. Best effort, as {@link closeToOthers}: a folder that cannot be made is the store's or
 * the queue's to report when it opens.
 */
async function closeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { mode: DATA_DIR_MODE });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  try {
    const found = await stat(folder);
    if (found.isDirectory() && (found.mode & 0o077) !== 0) await chmod(folder, DATA_DIR_MODE);
  } catch {
    // Left as it is: see above.
  }
}

/**
 * `mkdir -p`: creates `dir` and its missing parents with `mode`. Node's own recursive mkdir
 * retries for ever where a parent exists yet refuses new entries with ENOENT (`/proc`); here
 * that ENOENT is the answer.
 */
async function makeDirs(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await stat(dir)).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
  }
  await makeDirs(dirname(dir), mode);
  try {
    await mkdir(dir, { mode });
  } catch (error) {
    // Another process made it meanwhile.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(dir)).isDirectory())
      throw error;
  }
}

/** The error of `mkdir` or `access` on the data dir: bad input where the path is unusable. */
function unusable(dataDir: string, error: unknown): unknown {
  const reason = UNUSABLE_PATH[(error as NodeJS.ErrnoException).code ?? ''];
  if (reason === undefined) return error;
  return configurationError('--data-dir (BRIDGE_DATA_DIR)', `${dataDir} ${reason}`, error);
}

/**
 * Closes an existing data dir that other users may enter, when it is empty or the bridge's own.
 * Best effort: a dir the bridge may use but not change (a volume owned by another user, a
 * read-only mount's parent) is used as it is.
 */
async function closeToOthers(dataDir: string): Promise<void> {
  try {
    if (((await stat(dataDir)).mode & 0o077) === 0) return;
    const entries = await readdir(dataDir);
    if (entries.length === 0 || entries.some((entry) => DATA_DIR_CONTENTS.includes(entry)))
      await chmod(dataDir, DATA_DIR_MODE);
  } catch {
    // Left as it is: see above.
  }
}
