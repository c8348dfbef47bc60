// A preload for the bridge child of a benchmark: V8's sampling heap profiler over the run, the
// profile written as the process exits (`.heapprofile`, opened by Chrome DevTools' Memory tab or
// read as JSON). Node's own `--heap-prof` keeps only the samples still alive at the end; this one
// can keep what the collections took too, which is where a run's allocation and garbage are:
//
//   BENCH_BRIDGE_NODE_ARGS="--import ./bench/profile/heap-sampling.mjs" npx tsx bench/webhooks.ts
//
// HEAP_SAMPLING_KEEP: `all` (default) every sampled allocation; `promoted` those that outlived the
//   young generation (freed by a full collection, or alive at the end): what fills the old space
//   and makes full collections; `live` only those alive at the end (as `--heap-prof`).
// HEAP_SAMPLING_DELAY_MS: starts sampling this long after the process starts (default 0), so a
//   run's start-up and first sync can be left out.
// HEAP_SAMPLING_DIR: where `heap-<pid>.heapprofile` is written (default the working directory).
// HEAP_SAMPLING_INTERVAL: mean bytes between samples (default 65,536).
//
// `node bench/profile/heap-summary.mjs <file>` prints a profile's largest sites and who called one.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const keep = process.env.HEAP_SAMPLING_KEEP ?? 'all';
if (!['all', 'promoted', 'live'].includes(keep)) {
  throw new Error(`HEAP_SAMPLING_KEEP must be all, promoted or live, not "${keep}"`);
}
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
const start = () =>
  session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(process.env.HEAP_SAMPLING_INTERVAL ?? 65_536),
    includeObjectsCollectedByMajorGC: keep !== 'live',
    includeObjectsCollectedByMinorGC: keep === 'all',
  });
const delayMs = Number(process.env.HEAP_SAMPLING_DELAY_MS ?? 0);
if (delayMs > 0) setTimeout(start, delayMs).unref();
else start();

// An in-thread inspector session answers synchronously, so the profile is taken and written
// within the exit handler.
process.on('exit', () => {
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) return void process.stderr.write(`heap sampling: ${error.message}\n`);
    const file = join(process.env.HEAP_SAMPLING_DIR ?? '.', `heap-${process.pid}.heapprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
  });
});
