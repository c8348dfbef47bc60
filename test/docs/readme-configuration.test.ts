import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where the bridge's code lives (bench/ and test/ read knobs of their own, not the bridge's). */
const SOURCE_DIRS = ['shared', 'functions', 'infra', 'bin'];

/**
 * Variables the code touches that are another tool's, not a setting of the bridge: the README
 * need not list them. Each says why.
 */
const NOT_SETTINGS: Record<string, string> = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED:
    "the AWS SDK's own; bin/change-bridge.js sets it to silence the SDK's Node version notice",
};

/** An environment variable's name: SCREAMING_SNAKE with at least one underscore. */
const NAME = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+';

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes('/node_modules/') && !/\.test\.ts$/.test(file));
}

/**
 * The variables a file reads: `env.NAME` (also `process.env.NAME`, `appEnv.NAME`, `env?.NAME`,
 * `env['NAME']`), and the SCREAMING_SNAKE keys of the objects of a module that deals with the
 * environment (its zod env schemas, the environment the stack sets for the functions).
 */
function variablesReadBy(text: string): string[] {
  const accessed = [
    ...text.matchAll(new RegExp(`\\b\\w*[eE]nv\\??\\.(${NAME})\\b`, 'g')),
    ...text.matchAll(new RegExp(`\\b\\w*[eE]nv\\[['"](${NAME})['"]\\]`, 'g')),
  ].map((match) => match[1] ?? '');
  const keyed = /\b[eE]nv\b|[a-z]Env\b/.test(text)
    ? [...text.matchAll(new RegExp(`^\\s+(${NAME})\\??:\\s`, 'gm'))].map((match) => match[1] ?? '')
    : [];
  return [...accessed, ...keyed];
}

/** Every variable the code reads, with a file that reads it. */
function variablesInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    for (const name of variablesReadBy(readFileSync(file, 'utf8'))) {
      if (!found.has(name)) found.set(name, relative(ROOT, file));
    }
  }
  return found;
}

interface TableRow {
  names: string[];
  defaultText: string;
}

/** The rows of the README's Configuration table: the names in the first cell, the second cell. */
function configurationRows(readme: string): TableRow[] {
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^##+ /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [first = '', second = ''] = line.slice(1).split(' | ');
      return {
        names: [...first.matchAll(new RegExp(`\`(${NAME})\``, 'g'))].map((m) => m[1] ?? ''),
        defaultText: second.trim(),
      };
    });
}

describe("the README's Configuration table", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const rows = configurationRows(readme);
  const documented = new Set(rows.flatMap((row) => row.names));
  const inCode = variablesInCode();

  it('is found, with rows', () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it('lists every environment variable the code reads', () => {
    const missing = [...inCode]
      .filter(([name]) => !documented.has(name) && !(name in NOT_SETTINGS))
      .map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it('lists only variables the code reads', () => {
    const unknown = [...documented].filter((name) => !inCode.has(name));
    expect(unknown).toEqual([]);
  });

  it('gives each variable a default (or says it has none)', () => {
    const withoutDefault = rows.filter((row) => row.defaultText === '').map((row) => row.names);
    expect(withoutDefault).toEqual([]);
  });

  it('lists the variables design.md names as the configuration', () => {
    const required = [
      'CONNECTOR_BASE_URL',
      'CONNECTOR_CLIENT_TOKEN',
      'CONNECTOR_ACCESS_TOKEN',
      'CONNECTOR_CLIENT',
      'CONNECTOR_PORTFOLIO_SCOPE',
      'POLL_INTERVAL',
      'POLL_OVERLAP',
      'POLL_SETTLE_LAG',
      'POLL_ENTITIES',
      'INITIAL_SYNC',
      'BRIDGE_DATA_DIR',
      'BRIDGE_PORT',
      'WEBHOOK_ALLOW_PRIVATE',
      'BRIDGE_ADMIN_TOKEN',
    ];
    expect(required.filter((name) => !documented.has(name))).toEqual([]);
  });
});
