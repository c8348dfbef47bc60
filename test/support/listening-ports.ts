import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** `0100007F` (as /proc/net/tcp writes an IPv4 address: its bytes in host order) to `127.0.0.1`. */
function ipv4Of(hex: string): string {
  const bytes = hex.match(/../g)!.map((pair) => Number.parseInt(pair, 16));
  return bytes.reverse().join('.');
}

/**
 * The TCP sockets this process (any of its threads) listens on now, as `address:port`
 * (`[hex]:port` for IPv6), read from /proc as another user of the machine would see them
 * (`ss -ltn`): Linux only.
 * @example listeningAddresses() // ['127.0.0.1:4000']
 */
export function listeningAddresses(): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // Closed since the directory was read.
    }
  }
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/self/net/tcp', false],
    ['/proc/self/net/tcp6', true],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      const [ip, port] = fields[1]!.split(':') as [string, string];
      found.push(`${v6 ? `[${ip}]` : ipv4Of(ip)}:${Number.parseInt(port, 16)}`);
    }
  }
  return found.sort();
}
