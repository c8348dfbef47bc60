import { hash } from 'node:crypto';

/**
 * Gives `target` a member `key` holding the MD5 (hex) of `body`, as SQS answers `MD5OfBody` and
 * `MD5OfMessageBody`, computed when first read and kept: an enumerable getter, so spreading the
 * object or writing it as JSON (the queue's HTTP endpoint) reads it like any member. The bridge's
 * own client never reads it (its checks of MD5s are off, the queue being in process), and hashing
 * every envelope sent and received was about 2.6 % of the main thread in an emitting backfill.
 * `known`, when given (a log of an earlier version stored it), is the value. Returns `target`.
 * @example withLazyMd5({ MessageId: 'm1' }, 'MD5OfMessageBody', 'hello').MD5OfMessageBody === '5d41402abc4b2a76b9719d911017c592'
 */
export function withLazyMd5<T extends object, K extends string>(
  target: T,
  key: K,
  body: string,
  known?: string,
): T & Record<K, string> {
  if (known !== undefined) return Object.assign(target, { [key]: known } as Record<K, string>);
  return Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get(this: T) {
      const md5 = hash('md5', body, 'hex');
      Object.defineProperty(this, key, { value: md5, enumerable: true, writable: true });
      return md5;
    },
  }) as T & Record<K, string>;
}

/**
 * Gives `target` a member `key` that reads `message.md5` when read (an answer's `MD5OfBody` or
 * `MD5OfMessageBody`, see {@link withLazyMd5}); enumerable, as a plain member. Returns `target`.
 * @example withMd5Of(sent, 'MD5OfMessageBody', { MessageId: sent.id })
 */
export function withMd5Of<T extends object, K extends string>(
  message: { readonly md5: string },
  key: K,
  target: T,
): T & Record<K, string> {
  return Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => message.md5,
  }) as T & Record<K, string>;
}
