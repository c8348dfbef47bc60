/**
 * Runs `work` over `items` with at most `limit` in flight, preserving result order.
 * @example await mapWithConcurrency(ids, 4, fetchOne)
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Options of {@link readAhead}. */
export interface ReadAheadOptions<T> {
  /**
   * Asked as each item arrives, with it: false produces the next item only once the caller asks
   * for it (a caller about to stop wastes no item). Default: always ahead.
   */
  ahead?: (item: T) => boolean;
}

/**
 * Iterates `source` one item ahead: while the caller works on item n, item n+1 is already
 * being produced (for a paginated API: the next page is fetched while this one is stored).
 * Stopping early leaves at most one item produced and unused; its failure is ignored.
 * @example for await (const page of readAhead(pages)) await store(page);
 */
export async function* readAhead<T>(
  source: AsyncIterable<T>,
  { ahead = () => true }: ReadAheadOptions<T> = {},
): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined = iterator.next();
  try {
    for (;;) {
      const result: IteratorResult<T> = await (pending ?? iterator.next());
      if (result.done) return;
      pending = ahead(result.value) ? iterator.next() : undefined;
      // The caller may stop before awaiting it: never leave an unhandled rejection behind.
      pending?.catch(() => undefined);
      yield result.value;
    }
  } finally {
    await pending?.catch(() => undefined);
    await iterator.return?.();
  }
}

/**
 * Runs work one at a time per key, in the order it is handed over; work of different keys runs
 * concurrently. A failure settles only its own call: the key's next work still runs. A key is
 * forgotten once its work is done.
 * @example await writes.run(endpointId, () => storeEndpointState(...))
 */
export class KeyedSerial {
  /** Per key, the promise the next work waits for (the latest work's settling). */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier work of `key` has settled; its result or failure. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work not yet settled (for tests). */
  get busyKeys(): number {
    return this.tails.size;
  }
}

/** A signal linked to others until {@link LinkedSignal.release}: see {@link linkedSignal}. */
export interface LinkedSignal {
  /** Aborts (with the same reason) when any of the linked signals does; undefined for none. */
  signal: AbortSignal | undefined;
  /** Unlinks it: removes its listeners from the signals it was made from. Idempotent. */
  release(): void;
}

/**
 * One signal that aborts when any of `signals` does, as AbortSignal.any, but linked by listeners
 * that {@link LinkedSignal.release} removes: Node 20 keeps every signal made with
 * AbortSignal.any on its sources for as long as they live, so one made per call from a signal
 * that lives as long as the process (the poll loop's, a connection's) grew it by a call's worth
 * for ever. Undefined for none, the signal itself for one (nothing to release).
 * @example const linked = linkedSignal(deps.signal, overall); try { await send(linked.signal); } finally { linked.release(); }
 */
export function linkedSignal(...signals: (AbortSignal | undefined)[]): LinkedSignal {
  const given = signals.filter((signal) => signal !== undefined);
  if (given.length <= 1) return { signal: given[0], release: () => undefined };
  const controller = new AbortController();
  const already = given.find((signal) => signal.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const listeners = given.map((source) => {
    const onAbort = () => {
      controller.abort(source.reason);
      release();
    };
    source.addEventListener('abort', onAbort, { once: true });
    return { source, onAbort };
  });
  const release = () => {
    for (const { source, onAbort } of listeners.splice(0))
      source.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, release };
}

/**
 * `answer`, or a rejection as soon as `signal` aborts: with `reason()` when given, else the
 * signal's reason. The abort listener is removed once `answer` settles (a signal that lives as
 * long as the process keeps nothing of the calls that ended), and an answer that comes after
 * the abort goes to `late` (to free what it holds).
 * @example await settledOrAborted(lookup(host), stopping.signal, { reason: () => new Error('stopping') })
 */
export function settledOrAborted<T>(
  answer: Promise<T>,
  signal: AbortSignal,
  options: { reason?: () => unknown; late?: (value: T) => unknown } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(options.reason ? options.reason() : signal.reason);
      answer.then((value) => options.late?.(value)).catch(() => undefined);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * One signal that aborts when any of `signals` does; undefined when none is given, the signal
 * itself when one is (no listener added). Pure. For a signal made per call from one that lives
 * long, use {@link linkedSignal}.
 * @example anySignal(deps.signal, waitSignal)
 */
export function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((signal) => signal !== undefined);
  return given.length > 1 ? AbortSignal.any(given) : given[0];
}

/**
 * Runs `task` on every item with at most `limit` in flight. After the first failure no new
 * task starts; it waits for the running ones, then throws that first error.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
}
