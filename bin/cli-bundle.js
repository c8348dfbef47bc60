// The CLI's TypeScript sources as one JavaScript module, built with esbuild when they change.
//
// Running the sources through tsx's loader costs `change-bridge start` about 30 MB of resident
// memory for as long as it runs (the loader's thread and its transforms) and keeps an esbuild
// service process in its group; a bundle costs neither. Packages stay external (resolved from
// node_modules as usual); each source's `import.meta.url` stays its own, so paths relative to
// a source (the console's files, dynalite's package) resolve as before.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'shared', 'cli', 'main.ts');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'change-bridge');
const MANIFEST = join(CACHE_DIR, 'cli-manifest.json');
/** This file: a bundle built by an older version of it is built again. */
const BUNDLER = fileURLToPath(import.meta.url);

/** What a source's cache entry checks: its size and modification time. */
async function fingerprint(path) {
  const { size, mtimeMs } = await stat(path);
  return `${size}:${mtimeMs}`;
}

/** The bundle the manifest names, if every source it was built from is unchanged. */
async function cachedBundle() {
  let manifest;
  try {
    manifest = JSON.parse(await readFile(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
  if (manifest.node !== process.versions.node) return undefined;
  try {
    if (manifest.bundler !== (await fingerprint(BUNDLER))) return undefined;
    for (const [path, print] of Object.entries(manifest.inputs)) {
      if ((await fingerprint(join(ROOT, path))) !== print) return undefined;
    }
    await stat(join(CACHE_DIR, manifest.bundle));
  } catch {
    return undefined;
  }
  return join(CACHE_DIR, manifest.bundle);
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

/** Writes `contents` to `path` through a temporary file, so a concurrent start never reads half of it. */
async function writeAtomically(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

/** Bundles other than `current` older than an hour (a process started before may still load its own). */
async function removeOldBundles(current) {
  const hourAgo = Date.now() - 3_600_000;
  for (const file of await readdir(CACHE_DIR)) {
    if (file === current || !/^cli-.*\.mjs$/.test(file)) continue;
    const path = join(CACHE_DIR, file);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
    if (mtimeMs < hourAgo) await rm(path, { force: true });
  }
}

/** Builds the bundle and its manifest; stops esbuild's service process afterwards. */
async function buildBundle() {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      entryPoints: [ENTRY],
      // The metafile names its inputs relative to this folder.
      absWorkingDir: ROOT,
      bundle: true,
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
    const code = result.outputFiles[0].contents;
    const name = `cli-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
    await mkdir(CACHE_DIR, { recursive: true });
    await writeAtomically(join(CACHE_DIR, name), code);
    const inputs = {};
    for (const input of Object.keys(result.metafile.inputs)) {
      inputs[input] = await fingerprint(join(ROOT, input));
    }
    await writeAtomically(
      MANIFEST,
      JSON.stringify({
        node: process.versions.node,
        bundler: await fingerprint(BUNDLER),
        bundle: name,
        inputs,
      }),
    );
    await removeOldBundles(name);
    return join(CACHE_DIR, name);
  } finally {
    await esbuild.stop();
  }
}

/**
 * The URL of the CLI's bundle, built first when a source changed since the last build (about
 * a second); otherwise only each source's size and time are checked.
 * @throws when esbuild cannot build it or the cache folder is not writable.
 */
export async function cliBundleUrl() {
  const path = (await cachedBundle()) ?? (await buildBundle());
  return pathToFileURL(path).href;
}

/** The folder of the bundles (for tests). */
export const CLI_BUNDLE_DIR = dirname(MANIFEST);
