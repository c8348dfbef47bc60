import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { ResolvedAddress } from './system-resolver.ts';

/** Where the system keeps its static host names (hosts(5)). */
export const HOSTS_FILE_PATH = '/etc/hosts';

/** Host names and their addresses as a hosts file lists them, by name in lower case. */
export type HostsTable = ReadonlyMap<string, readonly ResolvedAddress[]>;

/**
 * Reads the text of a hosts file (hosts(5)): per line an IP address, then its names (the
 * canonical name and aliases), `#` starting a comment. A line whose first field is not an IP
 * address is passed over; a name listed on several lines gets every address, in the file's
 * order, each once. Names are matched without case, as DNS matches them. Pure.
 * @example parseHostsFile('127.0.0.1 localhost\n::1 localhost').get('localhost') // two addresses
 */
export function parseHostsFile(text: string): HostsTable {
  const table = new Map<string, ResolvedAddress[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = isIP(address ?? '');
    if (!address || (family !== 4 && family !== 6)) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      const addresses = table.get(key) ?? [];
      if (!addresses.some((known) => known.address === address))
        addresses.push({ address, family });
      table.set(key, addresses);
    }
  }
  return table;
}

/**
 * The hosts file at `path`, read now (the system reads it at every lookup too, so an edit
 * counts at once); an empty table when there is none or it cannot be read.
 */
export async function readHostsFile(path: string = HOSTS_FILE_PATH): Promise<HostsTable> {
  try {
    return parseHostsFile(await readFile(path, 'utf8'));
  } catch {
    return new Map();
  }
}
