#!/usr/bin/env node
// Builds `change-bridge/events` (compiled JavaScript and declarations in dist/events) on
// `npm ci`, `npm install` and `npm pack` (the `prepare` script), so a consumer of this checkout
// or of its tarball imports it in plain Node. A production install (`--omit=dev`) has no
// TypeScript compiler and needs no build: it says so and succeeds. The output directory is
// emptied first, so no file of an earlier build (a module since renamed) is left to be packed.
// `--out-dir DIR` builds elsewhere (the tests do).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventsBuildArguments } from './events-build-command.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
let tsc;
try {
  tsc = join(
    dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
} catch {
  process.stderr.write('change-bridge: TypeScript is not installed; dist/events not built\n');
  process.exit(0);
}
const outDir =
  process.argv[2] === '--out-dir' && process.argv[3]
    ? resolve(process.argv[3])
    : join(root, 'dist/events');
rmSync(outDir, { recursive: true, force: true });
const result = spawnSync(process.execPath, eventsBuildArguments(tsc, root, outDir), {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
