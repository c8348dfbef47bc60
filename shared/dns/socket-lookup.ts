import type { LookupAddress } from 'node:dns';
import { BridgeError } from '../errors.ts';
import type { ResolvedAddress } from './system-resolver.ts';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` as `net.connect` (and undici's `buildConnector`) takes it. */
export type SocketLookup = (
  hostname: string,
  options: { all?: boolean },
  callback: LookupCallback,
) => void;

/**
 * A socket `lookup` answered by `resolve` (an empty answer fails: `host … does not resolve`), one
 * lookup shared by every connection that asks for the same host while it runs; nothing is kept
 * once it settles (the next connection looks up again, so DNS changes are seen). Connections a pool opens at once to one host (a burst of
 * requests after a keep-alive connection closed) would otherwise each look the name up.
 * @example buildConnector({ lookup: sharedSocketLookup(createHostResolver().resolve) })
 */
export function sharedSocketLookup(
  resolve: (hostname: string) => Promise<readonly ResolvedAddress[]>,
): SocketLookup {
  const running = new Map<string, Promise<readonly ResolvedAddress[]>>();
  const resolveShared = (hostname: string) => {
    let lookup = running.get(hostname);
    if (!lookup) {
      lookup = resolve(hostname).finally(() => running.delete(hostname));
      running.set(hostname, lookup);
    }
    return lookup;
  };
  return (hostname, options, callback) => {
    resolveShared(hostname).then(
      (addresses) => {
        const first = addresses[0];
        if (!first) return callback(new BridgeError(`host ${hostname} does not resolve`), []);
        if (options.all) return callback(null, [...addresses]);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
