import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

const PACKAGE = readJson('package.json') as {
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports: Record<string, unknown>;
};
const LOCK = readJson('package-lock.json') as {
  packages: Record<string, { version?: string; peerDependencies?: Record<string, string> }>;
};

/** What `change-bridge/infra` needs from the CDK app that embeds it (README: embed the bridge). */
const CDK_PEERS = ['aws-cdk-lib', 'constructs'];

/** Whether `version` is in the caret range `^floor` (same major, not below the floor). */
function inCaretRange(version: string, range: string): boolean {
  const floor = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const have = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!floor || !have)
    throw new Error(`a range or version this test cannot read: ${range}, ${version}`);
  const [a, b] = [have.slice(1).map(Number), floor.slice(1).map(Number)];
  return a[0] === b[0] && (a[1]! - b[1]! || a[2]! - b[2]!) >= 0;
}

describe('the CDK packages change-bridge/infra takes from the app that embeds it', () => {
  it('are optional peer dependencies: one copy of constructs in the app, none for CLI users', () => {
    expect(PACKAGE.exports['./infra']).toBeDefined();
    for (const name of CDK_PEERS) {
      expect(PACKAGE.peerDependencies?.[name], name).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(PACKAGE.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
    }
    expect(LOCK.packages['']?.peerDependencies).toEqual(PACKAGE.peerDependencies);
  });

  it('take the versions this repository builds and tests the construct with', () => {
    for (const name of CDK_PEERS) {
      const locked = LOCK.packages[`node_modules/${name}`]?.version ?? '';
      expect(
        inCaretRange(locked, PACKAGE.peerDependencies?.[name] ?? ''),
        `${name}@${locked}`,
      ).toBe(true);
    }
  });
});
