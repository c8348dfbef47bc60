import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const POLICY_SOURCE = fileURLToPath(
  new URL('../../shared/webhooks/url-policy.ts', import.meta.url),
);

describe('the URL policy bundled as the Lambda functions are', () => {
  it('loads with no node_modules beside it and still refuses a blocked port', async () => {
    // As infra/bridge-function.ts bundles: esbuild, ESM, every package inside the bundle.
    const bundled = await build({
      entryPoints: [POLICY_SOURCE],
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
      logLevel: 'silent',
      banner: {
        js: "import { createRequire as __c } from 'node:module';const require = __c(import.meta.url);",
      },
    });
    const dir = await mkdtemp(join(tmpdir(), 'url-policy-bundle-'));
    try {
      const file = join(dir, 'url-policy.mjs');
      await writeFile(file, bundled.outputFiles[0]!.text);
      const policy = (await import(pathToFileURL(file).href)) as {
        everRefused(url: URL): string | undefined;
      };
      expect(policy.everRefused(new URL('https://hooks.example.com:25/in'))).toMatch(/port 25/);
      expect(policy.everRefused(new URL('https://hooks.example.com:8443/in'))).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
