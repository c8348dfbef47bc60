import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, without types
import { CLI_BUNDLE_DIR, cachedBundle, cliBundleUrl, storeBuild } from '../../bin/cli-bundle.js';

const consoleSource = fileURLToPath(
  new URL('../../shared/admin/routes-console.ts', import.meta.url),
);

/** Every module of the build whose entry is `entryUrl`, as text. */
async function buildText(entryUrl: string): Promise<string> {
  const folder = dirname(fileURLToPath(entryUrl));
  const files = (await readdir(folder)).filter((name) => name.endsWith('.mjs'));
  const texts = await Promise.all(files.map((name) => readFile(join(folder, name), 'utf8')));
  return texts.join('\n');
}

/** Runs `script` as an ES module in a fresh node process; resolves to its stdout. */
function runModule(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

/** Sets `path`'s modification time `ms` milliseconds back. */
async function age(path: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
}

const HOURS_2_MS = 7_200_000;

describe('the CLI bundle', () => {
  it('is built into the cache once and reused while no source changes', async () => {
    const first: string = await cliBundleUrl();
    const second: string = await cliBundleUrl();
    expect(second).toBe(first);
    const path = fileURLToPath(first);
    expect(path.startsWith(CLI_BUNDLE_DIR)).toBe(true);
    const manifest = JSON.parse(await readFile(`${CLI_BUNDLE_DIR}/cli-manifest.json`, 'utf8'));
    expect(Object.keys(manifest.inputs)).toContain('shared/cli/main.ts');
    expect(Object.keys(manifest.inputs)).toContain('shared/admin/routes-console.ts');
  }, 30_000);

  it("keeps each source's own import.meta.url, so paths relative to a source still resolve", async () => {
    const bundle = await buildText(await cliBundleUrl());
    // As an expression, not as the quoted name esbuild's `define` takes (the store thread's build).
    expect(bundle).not.toMatch(/(?<!['"`])\bimport\.meta\.url\b(?!['"`])/);
    expect(bundle).toContain(
      `new URL("./console/", ${JSON.stringify(pathToFileURL(consoleSource).href)})`,
    );
  }, 30_000);

  it("runs --version without loading start's runtime packages or undici", async () => {
    const url: string = await cliBundleUrl();
    const loaded = JSON.parse(
      await runModule(`
        import { createRequire } from 'node:module';
        const { runCli } = await import(${JSON.stringify(url)});
        const out = [];
        const code = await runCli(['--version'], { out: (t) => out.push(t), err: (t) => out.push(t) });
        const modules = Object.keys(createRequire(import.meta.url).cache);
        console.log(JSON.stringify({ code, out: out.join(''), modules }));`),
    );
    expect(loaded.code).toBe(0);
    expect(loaded.out.trim()).toBe('0.1.0');
    const heavy = loaded.modules.filter((path: string) =>
      /[\\/]node_modules[\\/](@aws-sdk|classic-level|dynalite|undici)[\\/]/.test(path),
    );
    // undici's table of blocked ports (a flag's check) is one file of constants, not undici.
    expect(
      heavy.filter((path: string) => !/undici[\\/]lib[\\/]web[\\/]fetch[\\/]constants/.test(path)),
    ).toEqual([]);
  }, 30_000);
});

describe('builds stored in a cache folder of their own', () => {
  let cacheDir: string;
  /** A build of two modules (what esbuild's output would be), and the source it came from. */
  const outputs = [
    { name: 'cli-main.mjs', contents: Buffer.from('import "./chunk-A.mjs";\n') },
    { name: 'chunk-A.mjs', contents: Buffer.from('export {};\n') },
  ];
  const inputs = ['shared/cli/main.ts'];
  let entries: string[];
  let manifest: { build: string; files: string[] };

  beforeAll(async () => {
    cacheDir = await mkdtemp(join(tmpdir(), 'cli-bundle-'));
    // What earlier builds left: two replaced long ago, a one-file bundle of the bundler before,
    // and the manifest of the build in use (of another Node, so this one is built anew).
    for (const name of ['cli-00000000000000aa', 'cli-00000000000000bb', 'cli-00000000000000cc']) {
      await mkdir(join(cacheDir, name));
      await writeFile(join(cacheDir, name, 'cli-main.mjs'), '');
      await age(join(cacheDir, name), HOURS_2_MS);
    }
    await writeFile(join(cacheDir, 'cli-0000000000000011.mjs'), '');
    await age(join(cacheDir, 'cli-0000000000000011.mjs'), HOURS_2_MS);
    await writeFile(
      join(cacheDir, 'cli-manifest.json'),
      JSON.stringify({ node: '0.0.0', build: 'cli-00000000000000cc', files: [], inputs: {} }),
    );
    expect(await cachedBundle(cacheDir)).toBeUndefined();
    // Two builders at once, as two `change-bridge` commands that found no build.
    entries = await Promise.all([
      storeBuild(cacheDir, outputs, inputs),
      storeBuild(cacheDir, [...outputs].reverse(), inputs),
    ]);
    manifest = JSON.parse(await readFile(join(cacheDir, 'cli-manifest.json'), 'utf8'));
  });

  afterAll(async () => {
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('keeps one whole folder of the build when two store it at once', async () => {
    expect(entries[1]).toBe(entries[0]);
    expect(entries[0]).toBe(join(cacheDir, manifest.build, 'cli-main.mjs'));
    expect(manifest.files).toEqual(['chunk-A.mjs', 'cli-main.mjs']);
    for (const { name, contents } of outputs) {
      expect(await readFile(join(cacheDir, manifest.build, name))).toEqual(contents);
    }
    expect(await cachedBundle(cacheDir)).toBe(entries[0]);
  });

  it('removes builds replaced over an hour ago and keeps the one it replaced for an hour', async () => {
    const left = (await readdir(cacheDir)).sort();
    // cc was the build in use: a process started from it may still load its chunks.
    expect(left).toEqual(['cli-00000000000000cc', manifest.build, 'cli-manifest.json'].sort());
  });

  it('is built again when a file of the build is missing, and the folder made whole', async () => {
    await rm(join(cacheDir, manifest.build, 'chunk-A.mjs'));
    expect(await cachedBundle(cacheDir)).toBeUndefined();
    expect(await storeBuild(cacheDir, outputs, inputs)).toBe(entries[0]);
    expect(await cachedBundle(cacheDir)).toBe(entries[0]);
    expect((await readdir(join(cacheDir, manifest.build))).sort()).toEqual(manifest.files);
  });

  it('is built again when a source it was built from changed', async () => {
    const changed = JSON.parse(await readFile(join(cacheDir, 'cli-manifest.json'), 'utf8'));
    changed.inputs['shared/cli/main.ts'] = '0:0';
    await writeFile(join(cacheDir, 'cli-manifest.json'), JSON.stringify(changed));
    expect(await cachedBundle(cacheDir)).toBeUndefined();
  });
});
