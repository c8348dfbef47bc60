import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  chmod,
  copyFile,
  type FileHandle,
  link,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BridgeError } from '../errors.ts';
import type { DataKey, DataKeyProvider } from './data-key-provider.ts';
import { decryptWithKey, encryptWithKey, TokenDecryptionError } from './token-cipher.ts';

/** AES-256 keys are 32 bytes. */
const KEY_BYTES = 32;
const IV_BYTES = 12;
/** Owner read and write only. */
const KEY_FILE_MODE = 0o600;
const WRAPPED_PREFIX = 'local1';
/** What a key file's temporary files are named after: `connections.key.tmp-<pid>-<hex>`. */
const TEMP_SUFFIX = '.tmp-';

/** Name of the key file in the data dir. */
export const LOCAL_KEY_FILE_NAME = 'connections.key';

/**
 * Reads the data dir's key-encryption key, creating it (32 random bytes, base64, mode 0600)
 * on first use. Creation is atomic and durable: the key is written to a temporary file in the
 * same dir and synced, then linked to the key file's name (so the name never shows a partial
 * key, and of creators racing one wins and the others read its key), and the dir is synced
 * before the key is returned, so no token is sealed under a key a power loss could take back.
 * On a filesystem without hard links the synced temporary file is copied to the name instead.
 * Temporary files a stopped creator left behind are never read, and removed. An empty key file
 * (as versions that wrote it in place left on a crash) is replaced. Refuses a key file of the
 * wrong length: that would fail every token later.
 * @throws BridgeError naming the file when it is unreadable or malformed.
 */
export async function loadOrCreateKeyFile(
  path: string,
  random: (size: number) => Buffer = randomBytes,
): Promise<Buffer> {
  let text = await readKeyText(path);
  if (text === undefined || text.trim() === '') {
    const key = random(KEY_BYTES);
    // Replacing an empty file cannot be exclusive (link refuses an existing name): its key is
    // the one the file holds after the rename.
    const replacing = text !== undefined;
    if ((await placeKeyFile(path, key, replacing)) && !replacing) {
      await removeTempFiles(path);
      return key;
    }
    text = await readKeyText(path);
    if (text === undefined)
      throw new BridgeError(`the connection key file ${path} could not be created`);
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new BridgeError(`the connection key file ${path} does not hold a 32-byte base64 key`);
  }
  await removeTempFiles(path);
  // A file copied or restored without its mode (cp -r, unzip, a backup tool) is closed again.
  // Best effort: a key file the bridge may read but not change (a read-only mount) still serves.
  if (((await stat(path)).mode & 0o077) !== 0)
    await chmod(path, KEY_FILE_MODE).catch(() => undefined);
  return key;
}

/** The key file's text, `undefined` when there is none. */
async function readKeyText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new BridgeError(`cannot read the connection key file ${path}`, { cause: error });
  }
}

/**
 * What link() answers on a filesystem without hard links (FAT and exFAT drives, some FUSE and
 * network mounts).
 */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Writes `key` to a temporary file beside `path`, syncs it, and gives it the name `path`: by
 * link(), which fails when another creator won (false: read theirs), or by rename() over an
 * empty file when `replacing`. The dir is synced once the name is there.
 */
async function placeKeyFile(path: string, key: Buffer, replacing: boolean): Promise<boolean> {
  const temp = `${path}${TEMP_SUFFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
  const file = await open(temp, 'wx', KEY_FILE_MODE);
  try {
    try {
      await file.writeFile(`${key.toString('base64')}\n`);
      await file.chmod(KEY_FILE_MODE);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await (replacing ? rename(temp, path) : linkOrCopy(temp, path));
    } catch (error) {
      // EEXIST: another creator linked its key first. ENOENT: a creator that found the key
      // file in place removed this temporary file as a leftover.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOENT') return false;
      throw error;
    }
  } finally {
    await unlink(temp).catch(ignoreMissing);
  }
  await syncDir(dirname(path));
  return true;
}

/**
 * Gives the synced file `temp` the name `path` unless that name exists (EEXIST): by link(), or
 * where the filesystem has no hard links by an exclusive copy, synced. A copy is not atomic, but
 * only `start` creates the key, under its data dir's lock, so no reader can see it half written;
 * a crash in the middle leaves an empty or short file, which the next start replaces or names.
 */
export async function linkOrCopy(
  temp: string,
  path: string,
  linkFile: (existing: string, name: string) => Promise<void> = link,
): Promise<void> {
  try {
    await linkFile(temp, path);
    return;
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  await copyFile(temp, path, constants.COPYFILE_EXCL);
  const copy = await open(path, 'r+');
  try {
    await copy.chmod(KEY_FILE_MODE);
    await copy.sync();
  } finally {
    await copy.close();
  }
}

/** Removes the temporary files of `path` that creators left behind; called once it holds a key. */
async function removeTempFiles(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}${TEMP_SUFFIX}`;
  const names = await readdir(dir).catch(() => []);
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix))
      .map((name) => unlink(join(dir, name)).catch(() => undefined)),
  );
}

/**
 * fsync of a directory, so a name linked or removed in it survives a power loss. Where the
 * platform cannot sync a directory (Windows refuses to open one), nothing is done.
 */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EACCES'].includes(code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

/**
 * Local runs' key provider: data keys wrapped with AES-256-GCM under the key file's key
 * (the local counterpart of KMS GenerateDataKey and Decrypt). The context is bound as aad.
 */
export class LocalKeyFileProvider implements DataKeyProvider {
  constructor(
    private readonly keyEncryptionKey: Buffer,
    private readonly random: (size: number) => Buffer = randomBytes,
  ) {}

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const plaintext = this.random(KEY_BYTES);
    const sealed = encryptWithKey(
      plaintext.toString('base64'),
      this.keyEncryptionKey,
      this.random(IV_BYTES),
      contextAad(context),
    );
    return {
      plaintext,
      wrappedKey: [WRAPPED_PREFIX, sealed.iv, sealed.tag, sealed.ciphertext].join(':'),
    };
  }

  async decryptDataKey(wrappedKey: string, context: Record<string, string>): Promise<Buffer> {
    const [prefix, iv, tag, ciphertext] = wrappedKey.split(':');
    if (prefix !== WRAPPED_PREFIX || !iv || !tag || !ciphertext) {
      throw new TokenDecryptionError('the wrapped data key is not a local key-file envelope');
    }
    const text = decryptWithKey(
      { iv, tag, ciphertext },
      this.keyEncryptionKey,
      contextAad(context),
    );
    return Buffer.from(text, 'base64');
  }
}

/** The context as stable text (sorted keys), like KMS's encryption context. */
function contextAad(context: Record<string, string>): string {
  return JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));
}
