import { Resolver } from 'node:dns/promises';
import { settledOrAborted } from '../concurrency.ts';
import { BridgeError } from '../errors.ts';
import { type HostsTable, readHostsFile } from './hosts-file.ts';
import { type HostResolver, type ResolvedAddress, systemResolver } from './system-resolver.ts';

/** Milliseconds the DNS client waits for a name server's answer before it asks again. */
export const DNS_QUERY_TIMEOUT_MS = 2_500;
/** Times the DNS client asks each name server before the lookup fails. */
export const DNS_QUERY_TRIES = 2;

/**
 * DNS client outcomes that say no name server could answer (or the lookup was stopped): no
 * answer in time, or SERVFAIL, a recursive resolver's word for the name's own servers not
 * answering it. The system resolver asks the same servers and would wait for the same silence,
 * so these are not handed to it.
 */
const UNANSWERED_CODES: ReadonlySet<string> = new Set([
  'ETIMEOUT',
  'ESERVFAIL',
  'ECANCELLED',
  'EDESTRUCTION',
]);

/** No name server answered for a host (a timeout or SERVFAIL): worth trying again later. */
export class HostUnansweredError extends BridgeError {
  override name = 'HostUnansweredError';
}

/**
 * A lookup ended, or refused, because its resolver was stopped (the process is stopping): says
 * nothing of the host. A connection waiting for it was never opened, so nothing was sent on it.
 */
export class HostLookupStoppedError extends BridgeError {
  override name = 'HostLookupStoppedError';
}

/** A host resolver whose lookups in flight can be ended at once. */
export interface StoppableHostResolver {
  resolve: HostResolver;
  /**
   * Cancels every DNS query in flight (each lookup fails at once) and refuses lookups from now
   * on, both with {@link HostLookupStoppedError}, so a stopping process has nothing left to wait
   * for. A lookup waiting for the system resolver fails at once too, though that lookup, which
   * cannot be cancelled, runs on in its thread.
   */
  stop(): void;
}

/** Options of {@link createHostResolver}; the defaults are the system's. */
export interface HostResolverOptions {
  /** The hosts file, read at every lookup (default: /etc/hosts). */
  readHosts?: () => Promise<HostsTable>;
  /** Name servers as `address` or `address:port` (default: those of /etc/resolv.conf). */
  servers?: readonly string[];
  /** Default {@link DNS_QUERY_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Default {@link DNS_QUERY_TRIES}. */
  tries?: number;
  /**
   * Asked when DNS answered but found no address (the name may come from another source the
   * system knows, such as mDNS for `.local` names, or a search domain). Default: the system
   * resolver (getaddrinfo).
   */
  fallback?: HostResolver;
}

/**
 * Resolves host names (receivers', the connector's) so that a stop never waits for a lookup.
 * The system resolver (getaddrinfo) cannot be cancelled and runs on libuv's threadpool, which
 * Node joins at exit, running every queued lookup first: with a receiver's name server silent,
 * a stopped bridge stayed up for the resolver's whole timeout (7-10 s) after saying "stopped",
 * with the connector's 96 s. So a name is looked up as the system would, in steps: the hosts
 * file first; then DNS through c-ares (on the event loop, cancellable; A and AAAA asked
 * together, one query channel a lookup, so a changed /etc/resolv.conf counts); and when DNS
 * answered that it knows no address, the system resolver, for the sources only it reads (mDNS,
 * search domains). A name server that never answers, or answers SERVFAIL, fails the lookup
 * (retryable) without a system lookup behind it. Lookups fail with a retryable error after
 * {@link StoppableHostResolver.stop}.
 * @example const hosts = createHostResolver(); await hosts.resolve('hooks.example.com'); hosts.stop();
 */
export function createHostResolver(options: HostResolverOptions = {}): StoppableHostResolver {
  const readHosts = options.readHosts ?? (() => readHostsFile());
  const fallback = options.fallback ?? systemResolver;
  const running = new Set<Resolver>();
  /** Aborted by stop(): ends the waits for system lookups, and those not yet started. */
  const stopping = new AbortController();
  const stoppedError = (hostname: string) =>
    new HostLookupStoppedError(`host ${hostname} not resolved: the process is stopping`, {
      retryable: true,
    });
  const refuseIfStopped = (hostname: string) => {
    if (stopping.signal.aborted) throw stoppedError(hostname);
  };

  const askDns = async (hostname: string) => {
    const resolver = new Resolver({
      timeout: options.timeoutMs ?? DNS_QUERY_TIMEOUT_MS,
      tries: options.tries ?? DNS_QUERY_TRIES,
    });
    if (options.servers) resolver.setServers([...options.servers]);
    running.add(resolver);
    try {
      return await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    } finally {
      running.delete(resolver);
    }
  };

  const resolve: HostResolver = async (hostname) => {
    refuseIfStopped(hostname);
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const listed = (await readHosts()).get(name);
    if (listed && listed.length > 0) return [...listed];
    refuseIfStopped(hostname);
    const [v4, v6] = await askDns(name);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled'
        ? v4.value.map((address) => ({ address, family: 4 as const }))
        : []),
      ...(v6.status === 'fulfilled'
        ? v6.value.map((address) => ({ address, family: 6 as const }))
        : []),
    ];
    if (addresses.length > 0) return addresses;
    refuseIfStopped(hostname);
    const unanswered = [v4, v6].find(
      (outcome): outcome is PromiseRejectedResult =>
        outcome.status === 'rejected' && UNANSWERED_CODES.has(errorCode(outcome.reason)),
    );
    if (unanswered)
      throw new HostUnansweredError(
        `host ${hostname} does not resolve: its name server did not answer (${errorCode(unanswered.reason)})`,
        { retryable: true, cause: unanswered.reason },
      );
    // A system lookup cannot be cancelled once started: at a stop the caller stops waiting for
    // it (its thread finishes it, and an exit waits for that), and one still waiting for its
    // place (see lookup-gate.ts) is not made.
    return settledOrAborted(fallback(hostname, stopping.signal), stopping.signal, {
      reason: () => stoppedError(hostname),
    });
  };

  return {
    resolve,
    stop() {
      stopping.abort();
      for (const resolver of running) resolver.cancel();
    },
  };
}

function errorCode(error: unknown): string {
  return String((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}
