import { BlockList, isIP } from 'node:net';
import { HostLookupStoppedError, HostUnansweredError } from '../dns/host-resolver.ts';
import type { HostResolver, ResolvedAddress } from '../dns/system-resolver.ts';
import { FETCH_BLOCKED_PORTS } from '../fetch-blocked-ports.ts';
import { embeddedIpv4 } from './embedded-ipv4.ts';

/** Options of the URL policy. */
export interface UrlPolicy {
  /** `WEBHOOK_ALLOW_PRIVATE`: allow http, loopback and private addresses (local runs). */
  allowPrivate: boolean;
}

function blockList(entries: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of entries) list.addSubnet(network, prefix, type);
  return list;
}

/**
 * Never reachable, whatever the configuration: the unspecified address, and the cloud's metadata
 * and credential endpoints (a delivery keeps an excerpt of the answer, which the admin API shows).
 */
const ALWAYS_BLOCKED = blockList([
  ['0.0.0.0', 8, 'ipv4'],
  ['169.254.169.254', 32, 'ipv4'], // EC2 instance metadata (and GCP's, Azure's)
  ['fd00:ec2::254', 128, 'ipv6'],
  ['169.254.170.2', 32, 'ipv4'], // ECS task credentials (Fargate, CodeBuild)
  ['169.254.170.23', 32, 'ipv4'], // EKS Pod Identity agent
  ['fd00:ec2::23', 128, 'ipv6'],
  ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud metadata
  ['::', 128, 'ipv6'],
]);

/** Not public: refused unless private addresses are allowed. */
const PRIVATE = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // CGNAT, RFC 6598
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 3, 'ipv4'], // multicast and reserved
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, RFC 3879; still routed inside sites)
  ['100::', 64, 'ipv6'], // discard-only, RFC 6666
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['ff00::', 8, 'ipv6'], // multicast
]);

/**
 * Why `address` (an IP literal) may not be connected to, or `undefined` when it may.
 * An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo:
 * {@link embeddedIpv4}) is judged by that IPv4 address too.
 */
export function addressRefusal(address: string, policy: UrlPolicy): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  for (const carried of embeddedIpv4(address)) {
    const kind = refusedKind(carried, 4, policy);
    if (kind) return `${address} carries ${carried}, ${kind}`;
  }
  const kind = refusedKind(address, family, policy);
  return kind ? `${address} is ${kind}` : undefined;
}

function refusedKind(ip: string, family: number, policy: UrlPolicy): string | undefined {
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (ALWAYS_BLOCKED.check(ip, type)) return 'a blocked address';
  if (!policy.allowPrivate && PRIVATE.check(ip, type)) {
    return 'a private, loopback or link-local address';
  }
  return undefined;
}

/** A URL's host as an address or name: an IPv6 literal without its brackets. Pure. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Why a URL's port may not be posted to, whatever its scheme, or `undefined` when it may: the
 * ports fetch and browsers never connect to (the WHATWG "bad ports": SMTP's 25, X11's 6000,
 * IRC's 6665–6669…), which belong to other protocols a signed POST must not reach. Pure.
 * @example portRefusal(new URL('https://hooks.example.com:25/in')) // 'must not use port 25: …'
 */
export function portRefusal(url: URL): string | undefined {
  if (url.port === '' || !FETCH_BLOCKED_PORTS.has(Number(url.port))) return undefined;
  return `must not use port ${url.port}: fetch and browsers never connect to it (a WHATWG "bad port", another protocol's)`;
}

/**
 * What refuses a URL under any policy, without resolving its host: credentials in it, a
 * `#fragment` (never sent over HTTP, so the URL stored would not be the one called; an empty
 * one, a trailing `#`, too), a port fetch never connects to ({@link portRefusal}), or a host
 * that is an always-blocked address literal (the unspecified address, cloud metadata). Lets a
 * client refuse those before asking the service. Pure.
 * @example everRefused(new URL('http://169.254.169.254/x')) // '169.254.169.254 is a blocked address'
 * @example everRefused(new URL('https://hooks.example.com/in#crm')) // 'must not carry a #fragment: …'
 */
export function everRefused(url: URL): string | undefined {
  if (url.username || url.password) return 'must not carry credentials';
  // `href` keeps the `#` of an empty fragment, which `hash` reports as ''.
  if (url.href.includes('#')) {
    return 'must not carry a #fragment: it is never sent over HTTP, so the receiver would not see it';
  }
  const port = portRefusal(url);
  if (port) return port;
  const host = hostOf(url);
  return isIP(host) ? addressRefusal(host, { allowPrivate: true }) : undefined;
}

/**
 * Why a URL's scheme may not be posted to under `policy`, or `undefined` when it may: https,
 * and http too only where private addresses are allowed (local runs). Pure.
 * @example schemeRefusal(new URL('http://hooks.example.com/in'), { allowPrivate: false }) // 'must use https'
 */
export function schemeRefusal(url: URL, policy: UrlPolicy): string | undefined {
  if (url.protocol === 'https:' || (policy.allowPrivate && url.protocol === 'http:')) {
    return undefined;
  }
  return policy.allowPrivate ? 'must use http or https' : 'must use https';
}

/**
 * Result of {@link checkWebhookUrl}. `undecided`: the host's addresses could not be learnt for
 * now (no name server answered, or the process is stopping), so the URL is neither allowed nor
 * wrong: asking again later may pass.
 */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; undecided?: true };

/**
 * Checks a subscription URL against the SSRF policy: https only (http too when private
 * addresses are allowed), no credentials, no port fetch never connects to, and every address the host resolves to must be
 * allowed by {@link addressRefusal}. Delivery checks the addresses again at connect time.
 * @example await checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false }, systemResolver)
 */
export async function checkWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  resolve: HostResolver,
): Promise<UrlCheck> {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url) return { ok: false, reason: 'is not an absolute URL' };
  const scheme = schemeRefusal(url, policy);
  if (scheme) return { ok: false, reason: scheme };
  const ever = everRefused(url);
  if (ever) return { ok: false, reason: ever };
  const host = hostOf(url);
  if (isIP(host)) {
    const refusal = addressRefusal(host, policy);
    return refusal ? { ok: false, reason: refusal } : { ok: true, url };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    // No answer for now (DNS down for a while, or this process stopping): the URL may be right.
    if (error instanceof HostUnansweredError || error instanceof HostLookupStoppedError)
      return { ok: false, reason: error.message, undecided: true };
    return { ok: false, reason: `host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal)
      return { ok: false, reason: `host ${host} resolves to a refused address: ${refusal}` };
  }
  return { ok: true, url };
}
