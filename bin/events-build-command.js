// The compiler command bin/build-events.js runs, apart from its I/O so a test can state it.
import { join } from 'node:path';

/**
 * TypeScript 7's native compiler checks with several threads by default. Measured on this
 * project's two shared cores (load 7, three runs each), the events build took 4.9-5.7 s of user
 * CPU and 5.6-6.4 s wall with them, 2.7-2.9 s and 3.3-3.6 s with one thread: one entry's
 * program gives the threads little to share.
 */
export const SINGLE_THREADED = '--singleThreaded';

/**
 * The arguments after `node` that build `change-bridge/events` with the compiler at `tsc`:
 * the project `tsconfig.events.json` under `root`, written to `outDir`, in one thread.
 * @example eventsBuildArguments('/repo/node_modules/typescript/bin/tsc', '/repo', '/repo/dist/events')
 */
export function eventsBuildArguments(tsc, root, outDir) {
  return [tsc, '-p', join(root, 'tsconfig.events.json'), '--outDir', outDir, SINGLE_THREADED];
}
