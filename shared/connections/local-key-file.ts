import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { BridgeError } from '../errors.ts';
import type { DataKey, DataKeyProvider } from './data-key-provider.ts';
import { decryptWithKey, encryptWithKey, TokenDecryptionError } from './token-cipher.ts';

/** AES-256 keys are 32 bytes. */
const KEY_BYTES = 32;
const IV_BYTES = 12;
/** Owner read and write only. */
const KEY_FILE_MODE = 0o600;
const WRAPPED_PREFIX = 'local1';

/** Name of the key file in the data dir. */
export const LOCAL_KEY_FILE_NAME = 'connections.key';

/**
 * Reads the data dir's key-encryption key, creating it (32 random bytes, base64, mode 0600)
 * on first use, or where a process stopped while creating it left it empty. Refuses a key file
 * of the wrong length: that would fail every token later.
 * @throws BridgeError naming the file when it is unreadable or malformed.
 */
export async function loadOrCreateKeyFile(
  path: string,
  random: (size: number) => Buffer = randomBytes,
): Promise<Buffer> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new BridgeError(`cannot read the connection key file ${path}`, { cause: error });
    }
  }
  // An empty file is one a process stopped while creating it (between the file's creation and
  // its write): no key was ever read from it, so it is created again rather than refused.
  const leftEmpty = text !== undefined && text.trim() === '';
  if (text === undefined || leftEmpty) {
    const key = random(KEY_BYTES);
    // `wx`: two processes racing to create it cannot both win; the loser reads the winner's key.
    try {
      await writeFile(path, `${key.toString('base64')}\n`, {
        mode: KEY_FILE_MODE,
        flag: leftEmpty ? 'w' : 'wx',
      });
      await chmod(path, KEY_FILE_MODE);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      text = await readFile(path, 'utf8');
    }
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new BridgeError(`the connection key file ${path} does not hold a 32-byte base64 key`);
  }
  // A file copied or restored without its mode (cp -r, unzip, a backup tool) is closed again.
  // Best effort: a key file the bridge may read but not change (a read-only mount) still serves.
  if (((await stat(path)).mode & 0o077) !== 0)
    await chmod(path, KEY_FILE_MODE).catch(() => undefined);
  return key;
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
