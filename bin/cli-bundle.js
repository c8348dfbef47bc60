// The CLI's TypeScript sources as JavaScript modules, built with esbuild when they change.
//
// Running the sources through tsx's loader costs `change-bridge start` about 30 MB of resident
// memory for as long as it runs (the loader's thread and its transforms) and keeps an esbuild
// service process in its group; a bundle costs neither. Packages stay external (resolved from
// node_modules as usual); each source's `import.meta.url` stays its own, so paths relative to
// a source (the console's files, dynalite's package) resolve as before.
//
// The bundle is split where the sources import lazily (`await import(...)`, e.g. start's
// runtime): `--version` or `events list` then load neither that code nor the packages only it
// imports (the SDK clients, dynalite, LevelDB), about half of the CLI's load. A build is one
// folder, `cli-<hash>/` (its entry `cli-main.mjs` and its chunks), moved into place whole.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'shared', 'cli', 'main.ts');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'change-bridge');
const MANIFEST_FILE = 'cli-manifest.json';
/** The name of a build's entry module (test/support/hold-cli-load-hooks.mjs knows it as `cli-*.mjs`). */
const ENTRY_FILE = 'cli-main.mjs';
/** This file: a bundle built by an older version of it is built again. */
const BUNDLER = fileURLToPath(import.meta.url);
/**
 * How long a build stays after another replaced it: a process that started from it still loads
 * its chunks (a command's lazy imports happen as it starts, within seconds).
 */
const REPLACED_BUILD_KEPT_MS = 3_600_000;

/** What a source's cache entry checks: its size and modification time. */
async function fingerprint(path) {
  const { size, mtimeMs } = await stat(path);
  return `${size}:${mtimeMs}`;
}

/** The manifest of the last build in `cacheDir`, or undefined when there is none or it cannot be read. */
async function readManifest(cacheDir) {
  try {
    return JSON.parse(await readFile(join(cacheDir, MANIFEST_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The entry of the build `cacheDir`'s manifest names, if every source it was built from is
 * unchanged and every file of it is there; otherwise undefined (a build is due).
 */
export async function cachedBundle(cacheDir) {
  const manifest = await readManifest(cacheDir);
  if (manifest?.node !== process.versions.node || !Array.isArray(manifest.files)) return undefined;
  try {
    if (manifest.bundler !== (await fingerprint(BUNDLER))) return undefined;
    for (const [path, print] of Object.entries(manifest.inputs)) {
      if ((await fingerprint(join(ROOT, path))) !== print) return undefined;
    }
    for (const file of manifest.files) await stat(join(cacheDir, manifest.build, file));
  } catch {
    return undefined;
  }
  return join(cacheDir, manifest.build, ENTRY_FILE);
}

/** `import.meta.url` as an expression, not the quoted name (esbuild's `define` takes it as a key). */
const IMPORT_META_URL = /(?<!['"`])\bimport\.meta\.url\b(?!['"`])/g;

/** Gives every TypeScript source its own `import.meta.url`, as when it runs unbundled. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replace(IMPORT_META_URL, url), loader: 'ts' };
    });
  },
};

/** Temporary names of this process: no two writes of it share one. */
let temporaries = 0;

/** A temporary name beside `path`, of this process and this write alone. */
function temporaryBeside(path) {
  temporaries += 1;
  return `${path}.${process.pid}-${temporaries}.tmp`;
}

/** Writes `contents` to `path` through a temporary file, so a concurrent start never reads half of it. */
async function writeAtomically(path, contents) {
  const temporary = temporaryBeside(path);
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

/** Whether `folder` holds every one of `outputs`. */
async function holdsEvery(folder, outputs) {
  for (const { name } of outputs) {
    if (!(await stat(join(folder, name)).catch(() => undefined))) return false;
  }
  return true;
}

/**
 * Writes the build's files into a temporary folder and moves it to `cli-<hash>` whole, so a
 * concurrent start never sees a part of it. A folder of that name already there holds the same
 * files (the name is their hash): this one is dropped, unless a file of that one went missing.
 * @returns the build's folder name.
 */
async function writeBuild(cacheDir, outputs) {
  const hash = createHash('sha256');
  for (const { name, contents } of outputs) hash.update(name).update('\0').update(contents);
  const build = `cli-${hash.digest('hex').slice(0, 16)}`;
  const target = join(cacheDir, build);
  const temporary = temporaryBeside(target);
  for (const { name, contents } of outputs) {
    await mkdir(dirname(join(temporary, name)), { recursive: true });
    await writeFile(join(temporary, name), contents);
  }
  try {
    await rename(temporary, target);
    return build;
  } catch (error) {
    if (error.code !== 'EEXIST' && error.code !== 'ENOTEMPTY') {
      await rm(temporary, { recursive: true, force: true });
      throw error;
    }
  }
  if (await holdsEvery(target, outputs)) {
    await rm(temporary, { recursive: true, force: true });
    return build;
  }
  const incomplete = `${temporaryBeside(target)}.removed`;
  await rename(target, incomplete);
  await rename(temporary, target);
  await rm(incomplete, { recursive: true, force: true });
  return build;
}

/**
 * Builds other than `current` replaced more than an hour ago (a process started from one may
 * still load its chunks), bundles of one file from older versions of this bundler, and
 * temporary folders a stopped build left.
 */
async function removeOldBuilds(cacheDir, current) {
  const keptSince = Date.now() - REPLACED_BUILD_KEPT_MS;
  for (const name of await readdir(cacheDir)) {
    if (name === current || !name.startsWith('cli-') || name.startsWith('cli-manifest.json')) {
      continue;
    }
    const path = join(cacheDir, name);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (mtimeMs >= keptSince) continue;
    // Out of its name first: a build of the same sources never finds half of it there.
    const removed = `${temporaryBeside(path)}.removed`;
    await rename(path, removed).catch(() => undefined);
    await rm(removed, { recursive: true, force: true });
  }
}

/** Marks the build `manifest` named as replaced now: it stays an hour from here (see removeOldBuilds). */
async function markReplaced(cacheDir, manifest, current) {
  if (typeof manifest?.build !== 'string' || manifest.build === current) return;
  const now = new Date();
  await utimes(join(cacheDir, manifest.build), now, now).catch(() => undefined);
}

/** Builds the bundle into `cacheDir` and writes its manifest; stops esbuild's service process afterwards. */
async function buildBundle(cacheDir) {
  const esbuild = await import('esbuild');
  const outdir = join(cacheDir, 'out');
  try {
    const result = await esbuild.build({
      entryPoints: { 'cli-main': ENTRY },
      // The metafile names its inputs relative to this folder.
      absWorkingDir: ROOT,
      bundle: true,
      splitting: true,
      outdir,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      packages: 'external',
      // Class and function names as in the sources (errors and logs name them).
      keepNames: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [ownImportMetaUrl],
    });
    const outputs = result.outputFiles.map((file) => ({
      name: relative(outdir, file.path),
      contents: file.contents,
    }));
    return await storeBuild(cacheDir, outputs, Object.keys(result.metafile.inputs));
  } finally {
    await esbuild.stop();
  }
}

/**
 * Stores a build in `cacheDir`: its files as one folder moved into place whole, then the
 * manifest naming it and each of `inputs` (paths relative to the repository) with its
 * fingerprint; then marks the build it replaced and removes older ones (see removeOldBuilds).
 * Safe while other processes store or load builds in the same folder.
 * @param outputs the build's modules, `name` relative to its folder (its entry `cli-main.mjs`).
 * @returns the path of the build's entry module.
 */
export async function storeBuild(cacheDir, outputs, inputs) {
  const sorted = [...outputs].sort((a, b) => (a.name < b.name ? -1 : 1));
  await mkdir(cacheDir, { recursive: true });
  const build = await writeBuild(cacheDir, sorted);
  const prints = {};
  for (const input of inputs) prints[input] = await fingerprint(join(ROOT, input));
  const replaced = await readManifest(cacheDir);
  await writeAtomically(
    join(cacheDir, MANIFEST_FILE),
    JSON.stringify({
      node: process.versions.node,
      bundler: await fingerprint(BUNDLER),
      build,
      files: sorted.map((output) => output.name),
      inputs: prints,
    }),
  );
  await markReplaced(cacheDir, replaced, build);
  await removeOldBuilds(cacheDir, build);
  return join(cacheDir, build, ENTRY_FILE);
}

/**
 * The URL of the CLI's bundle (its entry module), built first when a source changed since the
 * last build (about a second); otherwise only each source's size and time are checked.
 * @param cacheDir where builds and their manifest are kept (another folder for tests).
 * @throws when esbuild cannot build it or the cache folder is not writable.
 */
export async function cliBundleUrl(cacheDir = CACHE_DIR) {
  const path = (await cachedBundle(cacheDir)) ?? (await buildBundle(cacheDir));
  return pathToFileURL(path).href;
}

/** The folder of the bundles (for tests). */
export const CLI_BUNDLE_DIR = CACHE_DIR;
