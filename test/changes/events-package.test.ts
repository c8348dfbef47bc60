import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleEntityEvents } from './sample-events.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
  scripts: Record<string, string>;
};

/** The build's output directory for a package path under `./dist/events/`. */
function built(outDir: string, packagePath: string): string {
  return join(outDir, packagePath.replace(/^\.\/dist\/events\//, ''));
}

// `change-bridge/events` as consumers get it: compiled JavaScript and declarations, so plain
// Node and any tsconfig load it (design.md: `import type { CustomerUpdatedEvent } from
// 'change-bridge/events'`, with a type guard per event type).
describe('the change-bridge/events package entry', () => {
  let outDir: string;

  beforeAll(async () => {
    // Inside the repository, so the built files find zod in its node_modules as installed.
    const cache = join(ROOT, 'node_modules/.cache');
    await mkdir(cache, { recursive: true });
    outDir = await mkdtemp(join(cache, 'events-build-'));
    // A module an earlier build wrote, since renamed: the build must not leave it to be packed.
    await writeFile(join(outDir, 'renamed-since.js'), 'export {};\n');
    await run(process.execPath, [join(ROOT, 'bin/build-events.js'), '--out-dir', outDir], {
      cwd: ROOT,
    });
  }, 60_000);

  afterAll(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  it('is built before packing, and its exports name the built JavaScript and declarations', () => {
    expect(PACKAGE.scripts.prepare).toBe(PACKAGE.scripts.build);
    const entry = PACKAGE.exports['./events'];
    expect(entry).toEqual({ types: expect.any(String), default: expect.any(String) });
    if (entry === undefined || typeof entry === 'string') return;
    expect(entry.default).toMatch(/\.js$/);
    expect(existsSync(built(outDir, entry.default))).toBe(true);
    expect(existsSync(built(outDir, entry.types))).toBe(true);
    expect(PACKAGE.exports['./schemas/*']).toBe('./schemas/*');
  });

  it('leaves no file of an earlier build behind', () => {
    expect(existsSync(join(outDir, 'renamed-since.js'))).toBe(false);
  });

  it('runs its type guards in plain Node, without a TypeScript loader', async () => {
    const entry = PACKAGE.exports['./events'] as { default: string };
    const { created, updated } = sampleEntityEvents('customer');
    const script = `
      const { isCustomerUpdatedEvent } = await import(${JSON.stringify(built(outDir, entry.default))});
      const events = JSON.parse(process.argv[1]);
      console.log(JSON.stringify(events.map((event) => isCustomerUpdatedEvent(event))));
    `;
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify([updated, created])],
      { env },
    );
    expect(JSON.parse(stdout)).toEqual([true, false]);
  });
});
