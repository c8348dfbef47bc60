import { lookup as dnsLookup } from 'node:dns/promises';
import { type Gate, gate, LOOKUPS_AT_ONCE_MAX } from './lookup-gate.ts';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to all its addresses (injected so tests need no network). A resolver may
 * heed `signal`: once it aborts, a lookup not yet started is not made.
 */
export type HostResolver = (hostname: string, signal?: AbortSignal) => Promise<ResolvedAddress[]>;

/** The process's system lookups: at most {@link LOOKUPS_AT_ONCE_MAX} hold threadpool threads. */
const systemLookups = gate(LOOKUPS_AT_ONCE_MAX);

/**
 * A resolver that runs `lookup` (a system resolver: getaddrinfo on libuv's threadpool) through
 * `lookups`, so that hanging lookups never take every thread of the pool (see lookup-gate.ts).
 */
export function gatedResolver(
  lookup: typeof dnsLookup,
  lookups: Gate = systemLookups,
): HostResolver {
  return async (hostname, signal) => {
    // A lookup that waited for its place past the caller's stop is not made: it could not be
    // cancelled once started, and a process's exit waits for it.
    const found = await lookups(() => {
      signal?.throwIfAborted();
      return lookup(hostname, { all: true, verbatim: true });
    });
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  };
}

/**
 * The system resolver (`getaddrinfo`, like every HTTP client), at most
 * {@link LOOKUPS_AT_ONCE_MAX} lookups at once in the process.
 */
export const systemResolver: HostResolver = gatedResolver(dnsLookup);
