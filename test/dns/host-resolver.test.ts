import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createHostResolver,
  HostLookupStoppedError,
  type HostResolverOptions,
} from '../../shared/dns/host-resolver.ts';
import { parseHostsFile } from '../../shared/dns/hosts-file.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { BridgeError } from '../../shared/errors.ts';
import { type DnsTestServer, startDnsTestServer } from '../support/dns-server.ts';

const servers: DnsTestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function dnsServer(records: Record<string, readonly string[]> = {}): Promise<DnsTestServer> {
  const server = await startDnsTestServer(records);
  servers.push(server);
  return server;
}

/** A system resolver that must not be asked. */
const unaskedFallback: HostResolver = async (hostname) => {
  throw new Error(`the system resolver was asked for ${hostname}`);
};

function resolverOf(server: DnsTestServer, options: HostResolverOptions = {}) {
  return createHostResolver({
    readHosts: async () => new Map(),
    servers: [server.address],
    fallback: unaskedFallback,
    ...options,
  });
}

describe('createHostResolver', () => {
  it('answers a name with its IPv4 and IPv6 addresses from DNS', async () => {
    const server = await dnsServer({ 'hooks.example': ['203.0.113.7', '2001:db8::7'] });
    const hosts = resolverOf(server);
    expect(await hosts.resolve('hooks.example')).toEqual([
      { address: '203.0.113.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
    ]);
    expect(server.questions).toEqual(
      expect.arrayContaining([
        { name: 'hooks.example', type: 1 },
        { name: 'hooks.example', type: 28 },
      ]),
    );
  });

  it('answers a name with one family of addresses when DNS has no record of the other', async () => {
    const server = await dnsServer({ 'v4.example': ['203.0.113.8'] });
    expect(await resolverOf(server).resolve('v4.example')).toEqual([
      { address: '203.0.113.8', family: 4 },
    ]);
  });

  it('answers a name the hosts file lists without asking DNS, whatever its case', async () => {
    const server = await dnsServer({ 'receiver.test': ['203.0.113.9'] });
    const hosts = resolverOf(server, {
      readHosts: async () => parseHostsFile('127.0.0.1 receiver.test\n'),
    });
    expect(await hosts.resolve('Receiver.TEST.')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(server.questions).toEqual([]);
  });

  it('asks the system resolver when DNS knows no such name (mDNS, search domains)', async () => {
    const server = await dnsServer();
    const fallback = vi.fn<HostResolver>(async () => [{ address: '192.168.1.20', family: 4 }]);
    const hosts = resolverOf(server, { fallback });
    expect(await hosts.resolve('printer.local')).toEqual([{ address: '192.168.1.20', family: 4 }]);
    expect(fallback).toHaveBeenCalledWith('printer.local', expect.any(AbortSignal));
  });

  it('fails a lookup, retryable and without a system lookup, when the name server does not answer', async () => {
    const server = await dnsServer({ 'hooks.example': ['203.0.113.7'] });
    server.silent = true;
    const hosts = resolverOf(server, { timeoutMs: 50, tries: 1 });
    const failure = await hosts.resolve('hooks.example').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BridgeError);
    expect((failure as BridgeError).message).toBe(
      'host hooks.example does not resolve: its name server did not answer (ETIMEOUT)',
    );
    expect((failure as BridgeError).retryable).toBe(true);
  });

  it('fails a lookup without a system lookup when DNS answers SERVFAIL (the name servers of the name did not answer)', async () => {
    const server = await dnsServer({ 'hooks.example': ['203.0.113.7'] });
    server.failingNames.add('hooks.example');
    const failure = await resolverOf(server)
      .resolve('hooks.example')
      .catch((error: unknown) => error);
    expect((failure as BridgeError).message).toBe(
      'host hooks.example does not resolve: its name server did not answer (ESERVFAIL)',
    );
    expect((failure as BridgeError).retryable).toBe(true);
  });

  it('answers a name at once while lookups of names whose DNS hangs wait', async () => {
    const server = await dnsServer({ 'hooks.example': ['203.0.113.7'] });
    server.silentNames.add('hang.example');
    const hosts = resolverOf(server, { timeoutMs: 600_000, tries: 1 });
    const hanging = Array.from({ length: 8 }, () =>
      hosts.resolve('hang.example').catch((error: unknown) => error),
    );
    await vi.waitFor(() => expect(server.questions.length).toBe(16));
    expect(await hosts.resolve('hooks.example')).toEqual([{ address: '203.0.113.7', family: 4 }]);
    hosts.stop();
    await Promise.all(hanging);
  });

  it('ends a lookup waiting for the system resolver at once when stopped', async () => {
    const server = await dnsServer();
    let asked!: () => void;
    const systemAsked = new Promise<void>((settle) => {
      asked = settle;
    });
    // A system lookup that never ends (an mDNS or LDAP source that hangs).
    const fallback: HostResolver = () => {
      asked();
      return new Promise(() => undefined);
    };
    const hosts = resolverOf(server, { fallback });
    const lookup = hosts.resolve('printer.local').catch((error: unknown) => error);
    await systemAsked;
    hosts.stop();
    const failure = await lookup;
    expect(failure).toBeInstanceOf(HostLookupStoppedError);
    expect((failure as BridgeError).message).toBe(
      'host printer.local not resolved: the process is stopping',
    );
  });

  it('ends the lookups in flight at once when stopped, and refuses lookups after', async () => {
    const server = await dnsServer({ 'hooks.example': ['203.0.113.7'] });
    server.silent = true;
    // A name server that never answers: c-ares gives up after ~5-6 s whatever timeout it is
    // given, and the failure would then name ETIMEOUT, not the stop.
    const hosts = resolverOf(server, { timeoutMs: 600_000, tries: 1 });
    const lookup = hosts.resolve('hooks.example').catch((error: unknown) => error);
    await vi.waitFor(() => expect(server.questions.length).toBe(2));
    hosts.stop();
    const failure = await lookup;
    expect((failure as BridgeError).message).toBe(
      'host hooks.example not resolved: the process is stopping',
    );
    expect((failure as BridgeError).retryable).toBe(true);
    await expect(hosts.resolve('hooks.example')).rejects.toThrow('the process is stopping');
    expect(server.questions.length).toBe(2);
  });
});
