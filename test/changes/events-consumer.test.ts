import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_TYPES } from '../../shared/changes/catalogue.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/.bin/tsc');
/**
 * TypeScript 7's compiler checks with several threads by default: on two shared cores they took
 * twice the CPU time of one thread, and longer, for the same diagnostics.
 */
const ONE_THREAD = '--singleThreaded';

/** `customer.updated` → `CustomerUpdated`: how event types name their TypeScript type and guard. */
function pascal(type: string): string {
  return type
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

// A consumer project with change-bridge installed in its node_modules (package.json, the built
// dist/events and schemas/, as `npm pack` ships them), type-checking the imports README and
// design.md name through the package's exports, never through paths into the sources.
const CONSUMER = `
import type { ChangeEvent } from 'change-bridge/events';
import type { ${CHANGE_EVENT_TYPES.map((type) => `${pascal(type)}Event`).join(', ')} } from 'change-bridge/events';
import { ${CHANGE_EVENT_TYPES.map((type) => `is${pascal(type)}Event`).join(', ')} } from 'change-bridge/events';

export const guards: ((value: unknown) => boolean)[] = [${CHANGE_EVENT_TYPES.map((type) => `is${pascal(type)}Event`).join(', ')}];
export type Every = ${CHANGE_EVENT_TYPES.map((type) => `${pascal(type)}Event`).join(' | ')};
export const everyType: Every['type'][] = [${CHANGE_EVENT_TYPES.map((type) => `'${type}'`).join(', ')}];

export function lastName(body: unknown): string | undefined {
  if (!isCustomerUpdatedEvent(body)) return undefined;
  const event: CustomerUpdatedEvent = body;
  // @ts-expect-error a record field has the record's type, not any
  const wrong: number = event.data.current.LastName;
  return wrong === 0 ? undefined : event.data.current.LastName;
}

export function deletedRecord(event: ChangeEvent): null | undefined {
  if (event.type === 'resource.deleted') return event.data.current;
  return undefined;
}
`;

const SCHEMA_IMPORT = `
import schema from 'change-bridge/schemas/customer.updated.json' with { type: 'json' };
export const title: string = schema.title;
`;

/** How a CommonJS project under node16 names the types (README): as the import of an ES module. */
const CJS_NODE16_TYPES = `
type CustomerUpdatedEvent = import('change-bridge/events', {
  with: { 'resolution-mode': 'import' },
}).CustomerUpdatedEvent;
export function lastName(event: CustomerUpdatedEvent): string {
  return event.data.current.LastName;
}
`;

let dir: string;

/**
 * Type-checks the app in `app` (`esm` or `cjs`) with these compiler options. Declarations of the
 * package are checked too only where `skipLibCheck` is false (that takes seconds: zod's are large).
 */
async function typeCheck(
  app: 'esm' | 'cjs',
  name: string,
  options: Record<string, unknown>,
  files: readonly string[] = ['consumer.ts'],
): Promise<{ ok: boolean; output: string }> {
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      exactOptionalPropertyTypes: true,
      resolveJsonModule: true,
      skipLibCheck: true,
      types: [],
      ...options,
    },
    files,
  };
  const project = join(dir, app, `tsconfig.${name}.json`);
  await writeFile(project, JSON.stringify(config));
  try {
    await run(TSC, ['-p', project, ONE_THREAD], { cwd: join(dir, app) });
    return { ok: true, output: '' };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'change-bridge-consumer-'));
  const installed = join(dir, 'node_modules/change-bridge');
  await mkdir(installed, { recursive: true });
  await cp(join(ROOT, 'package.json'), join(installed, 'package.json'));
  await symlink(join(ROOT, 'schemas'), join(installed, 'schemas'));
  // The package's own dependency, where an install puts it.
  await symlink(join(ROOT, 'node_modules/zod'), join(dir, 'node_modules/zod'));
  await run(
    TSC,
    ['-p', 'tsconfig.events.json', '--outDir', join(installed, 'dist/events'), ONE_THREAD],
    { cwd: ROOT },
  );
  for (const [app, type] of [
    ['esm', 'module'],
    ['cjs', 'commonjs'],
  ] as const) {
    await mkdir(join(dir, app));
    await writeFile(join(dir, app, 'package.json'), JSON.stringify({ type }));
    await writeFile(join(dir, app, 'consumer.ts'), CONSUMER);
  }
  await writeFile(join(dir, 'esm/schema.ts'), SCHEMA_IMPORT);
  await writeFile(join(dir, 'cjs/import-types.ts'), CJS_NODE16_TYPES);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a TypeScript consumer of change-bridge/events', () => {
  it('type-checks a type and a guard per change event type as an ES module, under node16, nodenext and bundler', async () => {
    const configs = {
      node16: { module: 'node16', moduleResolution: 'node16' },
      bundler: { module: 'esnext', moduleResolution: 'bundler' },
      // JSON imports need nodenext's import attributes; here the declarations are checked too.
      nodenext: { module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false },
    };
    for (const [name, options] of Object.entries(configs)) {
      const files = name === 'nodenext' ? ['consumer.ts', 'schema.ts'] : ['consumer.ts'];
      const result = await typeCheck('esm', name, options, files);
      expect(result, name).toEqual({ ok: true, output: '' });
    }
  }, 120_000);

  it('type-checks from a CommonJS project under nodenext (node16: import types), and require() loads it', async () => {
    const result = await typeCheck('cjs', 'nodenext', {
      module: 'nodenext',
      moduleResolution: 'nodenext',
    });
    expect(result).toEqual({ ok: true, output: '' });
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { stdout } = await run(
      process.execPath,
      ['-e', "console.log(typeof require('change-bridge/events').isCustomerUpdatedEvent)"],
      { cwd: join(dir, 'cjs'), env },
    );
    expect(stdout.trim()).toBe('function');
    const node16 = await typeCheck(
      'cjs',
      'node16',
      { module: 'node16', moduleResolution: 'node16' },
      ['import-types.ts'],
    );
    expect(node16).toEqual({ ok: true, output: '' });
  }, 60_000);
});
