import { describe, expect, it } from 'vitest';
import { projectDiagnostics } from '../support/tsc-build-diagnostics.ts';

const PROJECTS = ['esm/node16', 'esm/node16x', 'cjs/node16'];

const OUTPUT = [
  "esm/node16/consumer.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
  "esm/node16x/consumer.ts(4,1): error TS2304: Cannot find name 'x'.",
  "cjs/node16/import-types.ts(2,3): error TS2322: Type '{ a: 1; }' is not assignable to type 'B'.",
  "  Object literal may only specify known properties, and 'a' does not exist in type 'B'.",
  '',
].join('\n');

describe('projectDiagnostics', () => {
  it('gives each project the diagnostics of its own folder, continuation lines included', () => {
    expect(projectDiagnostics(OUTPUT, 1, PROJECTS, 'esm/node16')).toEqual([
      "esm/node16/consumer.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    ]);
    expect(projectDiagnostics(OUTPUT, 1, PROJECTS, 'cjs/node16')).toEqual([
      "cjs/node16/import-types.ts(2,3): error TS2322: Type '{ a: 1; }' is not assignable to type 'B'.\n  Object literal may only specify known properties, and 'a' does not exist in type 'B'.",
    ]);
  });

  it('gives every project a diagnostic that names none of them', () => {
    const output = "error TS5083: Cannot read file 'tsconfig.base.json'.\n";
    for (const project of PROJECTS) {
      expect(projectDiagnostics(output, 1, PROJECTS, project)).toEqual([
        "error TS5083: Cannot read file 'tsconfig.base.json'.",
      ]);
    }
  });

  it('fails every project when tsc exits non-zero having printed nothing', () => {
    expect(projectDiagnostics('', 134, PROJECTS, 'esm/node16')).toEqual([
      'tsc -b exited 134 without a diagnostic',
    ]);
    expect(projectDiagnostics('', 0, PROJECTS, 'esm/node16')).toEqual([]);
  });
});
