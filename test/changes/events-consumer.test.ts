import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_TYPES } from '../../shared/changes/catalogue.ts';
import { projectDiagnostics } from '../support/tsc-build-diagnostics.ts';

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

/**
 * A consumer project: its folder under `esm` or `cjs` (whose package.json says which module kind
 * its files are), its compiler options and its files.
 */
interface ConsumerProject {
  folder: string;
  options: Record<string, unknown>;
  files: Record<string, string>;
}

const NODE16 = { module: 'node16', moduleResolution: 'node16' };
const NODENEXT = { module: 'nodenext', moduleResolution: 'nodenext' };

const PROJECTS: readonly ConsumerProject[] = [
  { folder: 'esm/node16', options: NODE16, files: { 'consumer.ts': CONSUMER } },
  {
    folder: 'esm/bundler',
    options: { module: 'esnext', moduleResolution: 'bundler' },
    files: { 'consumer.ts': CONSUMER },
  },
  // JSON imports need nodenext's import attributes; here the declarations are checked too.
  {
    folder: 'esm/nodenext',
    options: { ...NODENEXT, skipLibCheck: false },
    files: { 'consumer.ts': CONSUMER, 'schema.ts': SCHEMA_IMPORT },
  },
  { folder: 'cjs/nodenext', options: NODENEXT, files: { 'consumer.ts': CONSUMER } },
  { folder: 'cjs/node16', options: NODE16, files: { 'import-types.ts': CJS_NODE16_TYPES } },
];

/**
 * The tsconfig.json of a project. Declarations of the package are checked too only where
 * `skipLibCheck` is false (that takes seconds: zod's are large).
 */
function projectConfig(project: ConsumerProject) {
  return {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      exactOptionalPropertyTypes: true,
      resolveJsonModule: true,
      skipLibCheck: true,
      types: [],
      ...project.options,
    },
    files: Object.keys(project.files),
  };
}

let dir: string;
/** What the one `tsc -b` over every consumer project printed, and its exit code. */
let build: { output: string; exitCode: number };

/** The diagnostics of the project in `folder`: its own, and any that name no project. */
function diagnosticsOf(folder: string): string[] {
  const folders = PROJECTS.map((project) => project.folder);
  return projectDiagnostics(build.output, build.exitCode, folders, folder);
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
  }
  for (const project of PROJECTS) {
    await mkdir(join(dir, project.folder));
    await writeFile(
      join(dir, project.folder, 'tsconfig.json'),
      JSON.stringify(projectConfig(project)),
    );
    for (const [name, text] of Object.entries(project.files)) {
      await writeFile(join(dir, project.folder, name), text);
    }
  }
  const references = PROJECTS.map((project) => ({ path: project.folder }));
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ files: [], references }));
  // One tsc for the five projects: it parses the lib and package declarations they share once
  // (five runs took about 1.5 s more of the file's ~13 s of CPU). Each project has a folder of
  // its own, so each diagnostic names the project it belongs to.
  try {
    const { stdout } = await run(TSC, ['-b', ONE_THREAD, '--pretty', 'false'], { cwd: dir });
    build = { output: stdout, exitCode: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: unknown };
    build = {
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` || String(error),
      exitCode: typeof failed.code === 'number' ? failed.code : 1,
    };
  }
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a TypeScript consumer of change-bridge/events', () => {
  it('type-checks a type and a guard per change event type as an ES module, under node16, nodenext and bundler', () => {
    expect({
      node16: diagnosticsOf('esm/node16'),
      bundler: diagnosticsOf('esm/bundler'),
      nodenext: diagnosticsOf('esm/nodenext'),
    }).toEqual({ node16: [], bundler: [], nodenext: [] });
  });

  it('type-checks from a CommonJS project under nodenext (node16: import types), and require() loads it', async () => {
    expect(diagnosticsOf('cjs/nodenext')).toEqual([]);
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { stdout } = await run(
      process.execPath,
      ['-e', "console.log(typeof require('change-bridge/events').isCustomerUpdatedEvent)"],
      { cwd: join(dir, 'cjs'), env },
    );
    expect(stdout.trim()).toBe('function');
    expect(diagnosticsOf('cjs/node16')).toEqual([]);
  });
});
