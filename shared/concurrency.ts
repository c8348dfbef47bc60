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

/**
 * Iterates `source` one item ahead: while the caller works on item n, item n+1 is already
 * being produced (for a paginated API: the next page is fetched while this one is stored).
 * Stopping early leaves at most one item produced and unused; its failure is ignored.
 * @example for await (const page of readAhead(pages)) await store(page);
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = iterator.next();
  try {
    for (;;) {
      const result = await pending;
      if (result.done) return;
      pending = iterator.next();
      // The caller may stop before awaiting it: never leave an unhandled rejection behind.
      pending.catch(() => undefined);
      yield result.value;
    }
  } finally {
    await pending.catch(() => undefined);
    await iterator.return?.();
  }
}
