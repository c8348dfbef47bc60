import { createSocket, type Socket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

/** A question a {@link DnsTestServer} was asked. */
export interface DnsQuestion {
  name: string;
  /** 1 for A, 28 for AAAA. */
  type: number;
}

/** A DNS server on 127.0.0.1 (UDP) for tests: it answers from a table, or stays silent. */
export interface DnsTestServer {
  /** `127.0.0.1:port`, as `Resolver.setServers` takes it. */
  address: string;
  /** Every question asked, in order. */
  questions: DnsQuestion[];
  /** While true, questions are recorded and never answered (a name server that hangs). */
  silent: boolean;
  /** Names whose questions are recorded and never answered, whatever `silent` says. */
  silentNames: Set<string>;
  /** Names answered SERVFAIL (a recursive resolver whose upstream servers did not answer). */
  failingNames: Set<string>;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;

/**
 * Starts a DNS server answering names in `records` (their IPv4 addresses to A questions, IPv6
 * ones to AAAA) and NXDOMAIN to any other name; a name listed with no address of the asked
 * family gets an answer with no records (NODATA). `silentNames` and `failingNames` change that
 * per name.
 */
export async function startDnsTestServer(
  records: Record<string, readonly string[]>,
): Promise<DnsTestServer> {
  const socket: Socket = createSocket('udp4');
  const server: DnsTestServer = {
    address: '',
    questions: [],
    silent: false,
    silentNames: new Set(),
    failingNames: new Set(),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query, peer) => {
    const { name, type, end } = readQuestion(query);
    server.questions.push({ name, type });
    if (server.silent || server.silentNames.has(name.toLowerCase())) return;
    const known = records[name.toLowerCase()];
    const addresses = (known ?? []).filter((address) =>
      type === TYPE_A ? isIPv4(address) : type === TYPE_AAAA && isIPv6(address),
    );
    const code = server.failingNames.has(name.toLowerCase())
      ? RCODE_SERVFAIL
      : known === undefined
        ? RCODE_NXDOMAIN
        : 0;
    socket.send(
      answer(query.subarray(0, end), code === 0 ? addresses : [], code),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${socket.address().port}`;
  return server;
}

function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += length + 1;
  }
  return { name: labels.join('.'), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** The response to a one-question `query` (header and question), with `addresses` as records. */
function answer(query: Buffer, addresses: readonly string[], rcode: number): Buffer {
  const message = Buffer.from(query);
  // QR, RD, RA, and the response code.
  message.writeUInt16BE(0x8180 | rcode, 2);
  message.writeUInt16BE(addresses.length, 6);
  message.writeUInt32BE(0, 8);
  const records = addresses.map((address) => {
    const data = isIPv4(address) ? ipv4Bytes(address) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(isIPv4(address) ? TYPE_A : TYPE_AAAA, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(5, 6); // TTL
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([message, ...records]);
}

function ipv4Bytes(address: string): Buffer {
  return Buffer.from(address.split('.').map(Number));
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = address.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of groups.entries())
    bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  return bytes;
}
