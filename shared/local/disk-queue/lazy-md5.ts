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
  let md5: string | undefined;
  return withMemberOnRead(target, key, () => {
    md5 ??= hash('md5', body, 'hex');
    return md5;
  });
}

/**
 * Gives `target` a member `key` whose value `read` gives when the member is read: an enumerable
 * getter, so a spread or JSON reads it like a plain member. For an answer's `MD5OfBody` or
 * `MD5OfMessageBody`, and a Lambda record's `md5OfBody`, read from a message whose MD5 is
 * computed only when read (see {@link withLazyMd5}). Every object given a member of that name
 * shares one getter, which calls the reader the object keeps under a symbol (not enumerable: a
 * spread or JSON does not see it): a getter made for each object (a closure) turned each into a
 * slow dictionary object, about two a record in an emitting backfill. Returns `target`.
 * @example withMemberOnRead({ MessageId: sent.id }, 'MD5OfMessageBody', () => sent.md5)
 */
export function withMemberOnRead<T extends object, K extends string, V>(
  target: T,
  key: K,
  read: () => V,
): T & Record<K, V> {
  const { reader, get } = sharedGetterOf(key);
  Object.defineProperty(target, reader, { value: read, writable: true, configurable: true });
  return Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get,
  }) as T & Record<K, V>;
}

/** The getter every object given a member `key` by {@link withMemberOnRead} shares. */
interface SharedGetter {
  /** Where each object keeps its reader. */
  reader: symbol;
  get(this: Record<symbol, () => unknown>): unknown;
}

const sharedGetters = new Map<string, SharedGetter>();

function sharedGetterOf(key: string): SharedGetter {
  let shared = sharedGetters.get(key);
  if (shared === undefined) {
    const reader = Symbol(`reads ${key}`);
    shared = {
      reader,
      get() {
        return this[reader]!();
      },
    };
    sharedGetters.set(key, shared);
  }
  return shared;
}
