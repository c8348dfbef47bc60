import { setFlagsFromString } from 'node:v8';

/**
 * How far past its live size the heap of `change-bridge start` may grow before a full garbage
 * collection, in percent. V8 lets a process with a large heap limit (4 GB on a machine with
 * plenty of memory) grow up to 4× its live size while collection is cheap: the bridge's live
 * set is about 50 MB, but pages, events and queue messages passing through drove its heap to
 * 200 MB. At 50 % its old generation stays near 1.5× its live size (the young generation adds
 * about 34 MB), for a few more, short (10–40 ms), full collections.
 */
export const START_HEAP_GROWTH_PERCENT = 50;

/** Node flags that size the heap; a process started with one keeps its own choice. */
const HEAP_FLAGS = ['--heap-growing-percent', '--max-old-space-size', '--optimize-for-size'];

/**
 * Whether node was started with a flag of its own that sizes the heap, in its arguments or in
 * NODE_OPTIONS. Pure.
 * @example heapFlagsGiven(['--max-old-space-size=512'], undefined) === true
 */
export function heapFlagsGiven(execArgv: readonly string[], nodeOptions: string | undefined) {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return given.some((flag) =>
    HEAP_FLAGS.some((name) => flag.replaceAll('_', '-').startsWith(name)),
  );
}

/**
 * Caps the heap's growth between full collections at {@link START_HEAP_GROWTH_PERCENT} for this
 * process (V8 reads the flag whenever it sets the next collection's limit), unless node was
 * started with a heap flag of its own. Returns whether it applied the cap.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): boolean {
  if (heapFlagsGiven(execArgv, nodeOptions)) return false;
  setFlagsFromString(`--heap-growing-percent=${START_HEAP_GROWTH_PERCENT}`);
  return true;
}
