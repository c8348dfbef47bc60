import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { z } from 'zod';

/** The four handler files the runtime expects in its functions folder. */
export const HANDLER_FILES = ['planner.ts', 'poller.ts', 'dispatcher.ts', 'admin-api.ts'];

/** How a fixture's App synthesizes. */
export interface SynthOptions {
  /**
   * Run aws-cdk-lib's built-in CloudFormation validation (its wasm rule engine) in synthesis.
   * Off by default: it reports warnings only (its errors too, unless the app sets
   * `@aws-cdk/core:validateAgainstDefaultRules`), so it fails no synth, and it took about a third
   * of each synthesis's CPU. On where a test reads its findings (nag.test.ts).
   */
  cloudFormationValidation?: boolean;
}

/** A throwaway project to synthesize against; `remove` deletes it with every cloud assembly. */
export interface FunctionsFixture {
  functionsDir: string;
  /**
   * An App writing its cloud assembly inside the fixture and skipping asset bundling, and
   * aws-cdk-lib's built-in CloudFormation validation unless `options.cloudFormationValidation`
   * (see {@link SynthOptions}).
   */
  app(context?: Record<string, unknown>, options?: SynthOptions): App;
  remove(): void;
}

/**
 * A throwaway project (lock file + functions/ with the four entry files) so the
 * stacks synthesize whatever state the real handlers are in; bundling is skipped, so
 * the files only need to exist.
 */
export function createFunctionsFixture(): FunctionsFixture {
  const root = mkdtempSync(join(tmpdir(), 'change-bridge-infra-'));
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
  const functionsDir = join(root, 'functions');
  mkdirSync(functionsDir);
  for (const file of HANDLER_FILES) {
    writeFileSync(join(functionsDir, file), 'export const handler = async () => ({});\n');
  }
  return {
    functionsDir,
    // An empty bundling-stacks list skips esbuild: template tests stay fast.
    app: (context = {}, options = {}) =>
      new App({
        outdir: mkdtempSync(join(root, 'cdk.out-')),
        context: { 'aws:cdk:bundling-stacks': [], ...context },
        builtinCloudFormationValidation: options.cloudFormationValidation === true,
      }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

const StatementSchema = z.object({
  Effect: z.string(),
  Action: z.union([z.string(), z.array(z.string())]).optional(),
  Resource: z.unknown(),
  Condition: z.record(z.string(), z.unknown()).optional(),
});
const PolicyDocumentSchema = z.object({ Statement: z.array(StatementSchema) });
const TemplateSchema = z.object({
  Resources: z.record(
    z.string(),
    z.object({ Type: z.string(), Properties: z.record(z.string(), z.unknown()).optional() }),
  ),
});

/** One IAM policy statement, as found in a synthesized template. */
export type PolicyStatement = z.infer<typeof StatementSchema>;

/** Every statement of every identity policy (AWS::IAM::Policy and inline role policies). */
export function identityStatements(template: unknown): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  for (const { Type, Properties } of Object.values(TemplateSchema.parse(template).Resources)) {
    if (Type === 'AWS::IAM::Policy' || Type === 'AWS::IAM::ManagedPolicy') {
      statements.push(...PolicyDocumentSchema.parse(Properties?.PolicyDocument).Statement);
    }
    if (Type === 'AWS::IAM::Role') {
      const inline = z.array(z.object({ PolicyDocument: PolicyDocumentSchema })).optional();
      for (const policy of inline.parse(Properties?.Policies) ?? []) {
        statements.push(...policy.PolicyDocument.Statement);
      }
    }
  }
  return statements;
}

/** The actions of a statement as a list. */
export function actionsOf(statement: PolicyStatement): string[] {
  if (statement.Action === undefined) return [];
  return typeof statement.Action === 'string' ? [statement.Action] : statement.Action;
}
