import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { BridgeError } from '../errors.ts';
import type { SealedToken } from './connection.ts';
import { CONNECTION_KEY_CONTEXT, type DataKeyProvider } from './data-key-provider.ts';

const ALGORITHM = 'aes-256-gcm';
/** GCM's recommended nonce size, in bytes (NIST SP 800-38D). */
const IV_BYTES = 12;
/** Full-length GCM tag, in bytes. */
const TAG_BYTES = 16;

/** A sealed token could not be opened: tampered with, moved to another connection, or the key is gone. */
export class TokenDecryptionError extends BridgeError {
  override name = 'TokenDecryptionError';
}

/**
 * Encrypts with AES-256-GCM under `key`; `aad` (additional authenticated data) binds the
 * ciphertext to its owner, so a sealed token copied onto another connection fails to open.
 * `iv` must be 12 fresh random bytes. Pure apart from its inputs.
 */
export function encryptWithKey(
  plaintext: string,
  key: Buffer,
  iv: Buffer,
  aad: string,
): { iv: string; tag: string; ciphertext: string } {
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/**
 * Decrypts what {@link encryptWithKey} produced.
 * @throws TokenDecryptionError when any byte, the key or the aad differs (GCM authentication).
 */
export function decryptWithKey(
  sealed: { iv: string; tag: string; ciphertext: string },
  key: Buffer,
  aad: string,
): string {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch (error) {
    // The message never repeats any input: it may be a token.
    throw new TokenDecryptionError(`${aad}: the sealed value does not authenticate`, {
      cause: error,
    });
  }
}

/** Seals and opens connection AccessTokens with envelope encryption. */
export interface TokenCipher {
  /** Encrypts `accessToken` for `connectionId` under a (cached) data key. */
  seal(connectionId: string, accessToken: string): Promise<SealedToken>;
  /** @throws TokenDecryptionError when the sealed token was tampered with or belongs to another connection. */
  open(connectionId: string, sealed: SealedToken): Promise<string>;
}

/**
 * The envelope cipher over a key provider (wrap it in CachingDataKeyProvider so one data key
 * serves a whole invocation). The connection id is the aad of every token.
 */
export function createTokenCipher(
  keys: DataKeyProvider,
  randomIv: () => Buffer = () => randomBytes(IV_BYTES),
): TokenCipher {
  return {
    async seal(connectionId, accessToken) {
      const key = await keys.generateDataKey({ ...CONNECTION_KEY_CONTEXT });
      const sealed = encryptWithKey(accessToken, key.plaintext, randomIv(), aadOf(connectionId));
      return { v: 1, wrappedKey: key.wrappedKey, ...sealed };
    },
    async open(connectionId, sealed) {
      let key: Buffer;
      try {
        key = await keys.decryptDataKey(sealed.wrappedKey, { ...CONNECTION_KEY_CONTEXT });
      } catch (error) {
        if (error instanceof TokenDecryptionError) throw error;
        throw new TokenDecryptionError(`connection ${connectionId}: its data key does not open`, {
          cause: error,
          retryable: true,
        });
      }
      return decryptWithKey(sealed, key, aadOf(connectionId));
    },
  };
}

function aadOf(connectionId: string): string {
  return `connection:${connectionId}`;
}
