import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CachingDataKeyProvider,
  type DataKeyProvider,
} from '../../shared/connections/data-key-provider.ts';
import {
  LocalKeyFileProvider,
  loadOrCreateKeyFile,
} from '../../shared/connections/local-key-file.ts';
import { createTokenCipher, TokenDecryptionError } from '../../shared/connections/token-cipher.ts';

const TOKEN = 'secret-access-token-7f3a';
const KEY = Buffer.alloc(32, 7);

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function flipFirstByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString('base64');
}

describe('envelope encryption of AccessTokens', () => {
  it('opens what it sealed, and the sealed form never holds the token', async () => {
    const cipher = createTokenCipher(new LocalKeyFileProvider(KEY));
    const sealed = await cipher.seal('hotel-1', TOKEN);

    expect(JSON.stringify(sealed)).not.toContain(TOKEN);
    expect(await cipher.open('hotel-1', sealed)).toBe(TOKEN);
  });

  it('detects a changed ciphertext, tag, nonce or wrapped key', async () => {
    const cipher = createTokenCipher(new LocalKeyFileProvider(KEY));
    const sealed = await cipher.seal('hotel-1', TOKEN);

    for (const field of ['ciphertext', 'tag', 'iv'] as const) {
      await expect(
        cipher.open('hotel-1', { ...sealed, [field]: flipFirstByte(sealed[field]) }),
      ).rejects.toBeInstanceOf(TokenDecryptionError);
    }
    const [prefix, iv, tag, ciphertext] = sealed.wrappedKey.split(':');
    const wrappedKey = [prefix, iv, tag, flipFirstByte(ciphertext!)].join(':');
    await expect(cipher.open('hotel-1', { ...sealed, wrappedKey })).rejects.toBeInstanceOf(
      TokenDecryptionError,
    );
  });

  it('refuses a sealed token moved to another connection', async () => {
    const cipher = createTokenCipher(new LocalKeyFileProvider(KEY));
    const sealed = await cipher.seal('hotel-1', TOKEN);

    const error = await cipher.open('hotel-2', sealed).catch((e) => e);
    expect(error).toBeInstanceOf(TokenDecryptionError);
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses to open with another key file', async () => {
    const sealed = await createTokenCipher(new LocalKeyFileProvider(KEY)).seal('h', TOKEN);

    await expect(
      createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 8))).open('h', sealed),
    ).rejects.toBeInstanceOf(TokenDecryptionError);
  });

  it('asks the key provider for one data key per cache, however many tokens it seals and opens', async () => {
    const inner = new LocalKeyFileProvider(KEY);
    const calls = { generate: 0, decrypt: 0 };
    const counting: DataKeyProvider = {
      generateDataKey: (context) => {
        calls.generate += 1;
        return inner.generateDataKey(context);
      },
      decryptDataKey: (wrapped, context) => {
        calls.decrypt += 1;
        return inner.decryptDataKey(wrapped, context);
      },
    };
    const writer = createTokenCipher(new CachingDataKeyProvider(counting));
    const sealed = await Promise.all(
      Array.from({ length: 20 }, (_, index) => writer.seal(`h${index}`, `${TOKEN}-${index}`)),
    );
    const reader = createTokenCipher(new CachingDataKeyProvider(counting));
    const opened = await Promise.all(sealed.map((s, index) => reader.open(`h${index}`, s)));

    expect(opened[19]).toBe(`${TOKEN}-19`);
    expect(calls).toEqual({ generate: 1, decrypt: 1 });
  });
});

describe('the local key file', () => {
  const dirs: string[] = [];
  const keyPath = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-key-'));
    dirs.push(dir);
    return join(dir, 'connections.key');
  };
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('is created once with mode 0600 and read back the same', async () => {
    const path = await keyPath();
    const created = await loadOrCreateKeyFile(path);

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateKeyFile(path)).toEqual(created);
    expect(Buffer.from((await readFile(path, 'utf8')).trim(), 'base64')).toEqual(created);
  });

  it('is created again where a process stopped while creating it left it empty', async () => {
    const path = await keyPath();
    await writeFile(path, '', { mode: 0o600 });

    const created = await loadOrCreateKeyFile(path);
    expect(created).toHaveLength(32);
    expect(await loadOrCreateKeyFile(path)).toEqual(created);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('gives every concurrent creator the same key, and leaves no file but the key behind', async () => {
    for (let round = 0; round < 5; round++) {
      const path = await keyPath();
      const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKeyFile(path)));
      const stored = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
      for (const key of keys) expect(key).toEqual(stored);
      expect(await readdir(dirname(path))).toEqual([basename(path)]);
    }
  });

  it('never shows the key file under its name before it holds the whole key', async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 10; round++) {
      const path = await keyPath();
      let done = false;
      const watch = (async () => {
        // Read between every two turns of the event loop, so a file created and then written
        // in two steps is caught in between.
        while (!done) {
          const text = readOrUndefined(path);
          if (text !== undefined) seen.add(text.length === 45 ? 'key' : `${text.length} chars`);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await loadOrCreateKeyFile(path).finally(() => {
        done = true;
      });
      await watch;
    }
    expect([...seen].filter((what) => what !== 'key')).toEqual([]);
  });

  it('ignores and removes the temporary file a creator that stopped left behind', async () => {
    const path = await keyPath();
    const leftover = `${path}.tmp-4242-0a1b2c3d`;
    const leftKey = Buffer.alloc(32, 9);
    await writeFile(leftover, `${leftKey.toString('base64')}\n`, { mode: 0o600 });

    const created = await loadOrCreateKeyFile(path);
    expect(created).not.toEqual(leftKey);
    expect(await readdir(dirname(path))).toEqual([basename(path)]);

    // Left behind beside an existing key file: removed too, the key kept.
    await writeFile(leftover, `${leftKey.toString('base64')}\n`, { mode: 0o600 });
    expect(await loadOrCreateKeyFile(path)).toEqual(created);
    expect(await readdir(dirname(path))).toEqual([basename(path)]);
  });
});
