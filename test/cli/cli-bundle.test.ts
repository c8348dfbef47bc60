import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, without types
import { CLI_BUNDLE_DIR, cliBundleUrl } from '../../bin/cli-bundle.js';

const consoleSource = fileURLToPath(
  new URL('../../shared/admin/routes-console.ts', import.meta.url),
);

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
    const bundle = await readFile(fileURLToPath(await cliBundleUrl()), 'utf8');
    // As an expression, not as the quoted name esbuild's `define` takes (the store thread's build).
    expect(bundle).not.toMatch(/(?<!['"`])\bimport\.meta\.url\b(?!['"`])/);
    expect(bundle).toContain(
      `new URL("./console/", ${JSON.stringify(pathToFileURL(consoleSource).href)})`,
    );
  }, 30_000);
});
