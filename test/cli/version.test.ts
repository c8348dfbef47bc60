import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';

describe('change-bridge --version', () => {
  it("prints the package's version and exits 0", async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-V']) {
      const out: string[] = [];
      const code = await runCli([flag], { out: (text) => out.push(text), err: () => {} });
      expect(code).toBe(0);
      expect(out.join('').trim()).toBe(version);
    }
  });
});
