import { isIPv4, isIPv6 } from 'node:net';

/** The 16 bytes of an IPv6 address (any textual form, a trailing dotted IPv4 included). */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    const tail = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    text = text.slice(0, -dotted.length) + tail;
  }
  const [head = '', rest] = text.split('::') as [string, string | undefined];
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(zeros).fill('0'), ...right];
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  for (const [index, group] of groups.entries()) {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  }
  return bytes;
}

function dottedQuad(bytes: ArrayLike<number>): string {
  return Array.from(bytes).join('.');
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

function allZero(bytes: Uint8Array, from: number, to: number): boolean {
  return bytes.subarray(from, to).every((value) => value === 0);
}

/**
 * The IPv4 addresses an IPv6 address carries, by which it must be judged: IPv4-mapped
 * (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, except
 * :: and ::1), NAT64 (64:ff9b::/96; 64:ff9b:1::/48 both as a /48 and a /96 embedding,
 * RFC 6052), 6to4 (2002::/16) and Teredo (2001::/32, the client address is the last
 * 32 bits inverted). Empty for any other address, and for an IPv4 address.
 * @example embeddedIpv4('64:ff9b::7f00:1') // ['127.0.0.1']
 */
export function embeddedIpv4(address: string): string[] {
  if (isIPv4(address)) return [];
  const bytes = ipv6Bytes(address);
  if (!bytes) return [];
  const last = bytes.subarray(12, 16);
  if (allZero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [dottedQuad(last)];
  if (allZero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && allZero(bytes, 10, 12)) {
    return [dottedQuad(last)];
  }
  if (allZero(bytes, 0, 12)) {
    const compatible = !allZero(bytes, 12, 15) || (bytes[15] ?? 0) > 1;
    return compatible ? [dottedQuad(last)] : [];
  }
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && allZero(bytes, 4, 12)) {
    return [dottedQuad(last)];
  }
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) {
    // RFC 6052 /48: the IPv4 address fills bits 48-63 and 72-87 around the u octet.
    // Judged by both readings; the one that only reads the other's zero padding is skipped.
    const as48 = dottedQuad([bytes[6]!, bytes[7]!, bytes[9]!, bytes[10]!]);
    return [as48, dottedQuad(last)].filter((reading) => reading !== '0.0.0.0');
  }
  if (startsWith(bytes, [0x20, 0x02])) return [dottedQuad(bytes.subarray(2, 6))];
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) {
    return [dottedQuad(Array.from(last, (value) => value ^ 0xff))];
  }
  return [];
}
