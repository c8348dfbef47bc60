import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Linux's range when /proc does not say (`net.ipv4.ip_local_port_range`). */
const EPHEMERAL_DEFAULT = { first: 32_768, last: 60_999 };
/** The lowest port given out: above every port fetch blocks (10080 the highest) and common dev servers. */
const LOWEST_PORT = 20_000;
/** Ports a vitest worker picks from, its own slice of those below the ephemeral range. */
const SLICE_PORTS = 1_500;

/** The first and last port the OS gives to `listen(0)` and to a client socket's local end. */
export function ephemeralRange(text?: string): { first: number; last: number } {
  const [first = 0, last = 0] = (text ?? '').trim().split(/\s+/).map(Number);
  return Number.isInteger(first) && Number.isInteger(last) && first > 0 && last >= first
    ? { first, last }
    : EPHEMERAL_DEFAULT;
}

/** {@link ephemeralRange} of this machine. */
export function readEphemeralRange(): { first: number; last: number } {
  try {
    return ephemeralRange(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'));
  } catch {
    return EPHEMERAL_DEFAULT;
  }
}

/**
 * The ports this worker picks from: a slice (by `VITEST_POOL_ID`) of those between
 * {@link LOWEST_PORT} and the ephemeral range's first, so two workers rarely try the same one.
 */
export function workerPortRange(
  ephemeralFirst: number,
  poolId: number,
): { first: number; last: number } {
  const slices = Math.max(1, Math.floor((ephemeralFirst - LOWEST_PORT) / SLICE_PORTS));
  const first = LOWEST_PORT + (poolId % slices) * SLICE_PORTS;
  return { first, last: Math.min(first + SLICE_PORTS, ephemeralFirst) - 1 };
}

/** A port the OS gives to `listen(0)`, closed again: where no range lies below the ephemeral one. */
async function osPickedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/** Whether a server can listen on `port` of 127.0.0.1 (it is closed again at once). */
export async function listensOn(port: number): Promise<boolean> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise((resolve) => server.close(resolve));
  return listening;
}

/**
 * A TCP port on 127.0.0.1 nothing holds, for a server a test starts (a `change-bridge start`
 * child, say). Picked below the ephemeral range: the OS gives a port just freed there to the
 * next `listen(0)` or to a client socket's local end, so a port taken from `listen(0)` and
 * closed could be in use again before the test's server listens on it (the likely cause of the
 * console test's bridge exiting 1 in one CI run); no socket takes a port below that range unless
 * asked.
 */
export async function freePort(): Promise<number> {
  const ephemeralFirst = readEphemeralRange().first;
  if (ephemeralFirst < LOWEST_PORT + SLICE_PORTS) return osPickedPort();
  const range = workerPortRange(ephemeralFirst, Number(process.env.VITEST_POOL_ID ?? process.pid));
  const span = range.last - range.first + 1;
  for (let tries = 0; tries < 200; tries++) {
    const port = range.first + Math.floor(Math.random() * span);
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free TCP port from ${range.first} to ${range.last}`);
}
