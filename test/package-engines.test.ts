import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;

interface LockedPackage {
  version?: string;
  engines?: { node?: string };
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const PACKAGE = readJson('package.json') as { engines: { node: string } };
const LOCK = readJson('package-lock.json') as { packages: Record<string, LockedPackage> };

/**
 * Installed packages whose `engines.node` the declared minimum may miss, because no code path
 * of the bridge, its tests or its build ever loads them. cookie 2 (Node 22) comes in through
 * fauxqs → fastify → light-my-request, which fastify requires only for `inject`, never called.
 */
const NEVER_LOADED = new Set(['cookie']);

type Version = [number, number, number];

/** `20.19`, `20.19.0`, `10.x` or `20` as [major, minor, patch]. */
function parseVersion(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/\.x$/, '')
    .split('.')
    .map((part) => Number(part));
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `version` satisfies one `engines.node` range of the forms the lockfile holds. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) => {
    const text = alternative.trim();
    if (text === '*') return true;
    const atLeast = /^>=\s*(\S+)$/.exec(text);
    if (atLeast?.[1]) return compare(version, parseVersion(atLeast[1])) >= 0;
    const caret = /^\^(\S+)$/.exec(text);
    if (caret?.[1]) {
      const floor = parseVersion(caret[1]);
      return version[0] === floor[0] && compare(version, floor) >= 0;
    }
    if (/^\d+$/.test(text)) return version[0] === Number(text);
    throw new Error(`an engines range this test cannot read: ${text}`);
  });
}

describe('the Node version the package declares', () => {
  const minimum = parseVersion(PACKAGE.engines.node.replace(/^>=\s*/, ''));

  it('satisfies the engines of every package npm ci installs', () => {
    const refused = Object.entries(LOCK.packages)
      .filter(([path]) => path !== '')
      .map(([path, locked]) => ({ name: path.replace(/^.*node_modules\//, ''), locked }))
      .filter(({ name }) => !NEVER_LOADED.has(name))
      .filter(({ locked }) => locked.engines?.node && !satisfies(minimum, locked.engines.node))
      .map(({ name, locked }) => `${name}@${locked.version} wants node ${locked.engines?.node}`);
    expect(refused).toEqual([]);
  });

  it('is the minimum the lockfile records and the README states', () => {
    expect(LOCK.packages['']?.engines?.node).toBe(PACKAGE.engines.node);
    const stated = /Node (\d+\.\d+(?:\.\d+)?) or newer/.exec(
      readFileSync(join(ROOT, 'README.md'), 'utf8'),
    );
    expect(stated?.[1]).toBe(PACKAGE.engines.node.replace(/^>=\s*/, ''));
  });
});
