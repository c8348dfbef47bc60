import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_NAME } from '../../shared/connector/connector-config.ts';

const CONFIG_SOURCE = fileURLToPath(
  new URL('../../shared/connector/connector-config.ts', import.meta.url),
);

describe('the default Client name', () => {
  it('names the version package.json gives', () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(DEFAULT_CLIENT_NAME).toBe(`change-bridge ${version}`);
  });

  it('follows a version bump in package.json, also bundled by esbuild as the Lambdas are', async () => {
    // The source bundled as the Lambda functions are (esbuild, ESM), with package.json bumped.
    const bumped = await build({
      entryPoints: [CONFIG_SOURCE],
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'bumped-package-json',
          setup(plugins) {
            plugins.onLoad({ filter: /[\\/]package\.json$/ }, () => ({
              contents: JSON.stringify({ name: 'change-bridge', version: '9.8.7' }),
              loader: 'json',
            }));
          },
        },
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), 'client-name-'));
    try {
      const file = join(dir, 'connector-config.mjs');
      await writeFile(file, bumped.outputFiles[0]!.text);
      const bundled = (await import(pathToFileURL(file).href)) as { DEFAULT_CLIENT_NAME: string };
      expect(bundled.DEFAULT_CLIENT_NAME).toBe('change-bridge 9.8.7');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
