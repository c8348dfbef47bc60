/**
 * Host lookups the system resolver runs at once, at most. getaddrinfo runs on libuv's
 * threadpool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which the local store
 * (LevelDB), the disk queue's files, zlib and crypto share, and a lookup cannot be cancelled: a
 * receiver whose DNS server does not answer holds a thread for the resolver's whole timeout.
 * Four such lookups took every thread, and the bridge's own store writes waited behind them
 * (checked: a LevelDB put waits for as long as all four threads are held, and returns in
 * under a millisecond with three). Two leave the store two threads whatever receivers' DNS does.
 */
export const LOOKUPS_AT_ONCE_MAX = 2;

/** Runs work when fewer than a limit run, in the order asked. */
export type Gate = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * A gate that runs at most `limit` of the works handed to it at once, the others waiting in
 * the order they came; a work that fails frees its place as one that succeeds does.
 * @example const gated = gate(2); await gated(() => lookup(host));
 */
export function gate(limit: number): Gate {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (work) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      release();
    }
  };
}
