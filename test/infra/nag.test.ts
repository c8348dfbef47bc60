import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChangeBridgeApp, createChangeBridgeApp } from '../../infra/create-app.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

const fixture = createFunctionsFixture();
afterAll(() => fixture.remove());

const ValidationReportSchema = z.object({
  pluginReports: z.array(
    z.object({
      pluginName: z.string(),
      violations: z.array(z.object({ ruleName: z.string(), severity: z.string() })),
    }),
  ),
});

function readReport(outdir: string) {
  return ValidationReportSchema.parse(
    JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')),
  );
}

describe('cdk-nag AwsSolutions checks', () => {
  // One app for the synthesis and for the acknowledgements read from its constructs (which
  // building adds, synthesis does not): building it is seconds of CPU, the same for both.
  let app: App;
  let built: ChangeBridgeApp;
  beforeAll(() => {
    app = fixture.app({ functionsDir: fixture.functionsDir }, { cloudFormationValidation: true });
    built = createChangeBridgeApp(app, {});
  });

  it('run inside synthesis of the app and find nothing unacknowledged', () => {
    const { stateful, runtime } = built;
    // synth() throws ValidationFailed when any plugin reports a violation.
    const assembly = app.synth();
    expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual(
      [stateful.stackName, runtime.stackName].sort(),
    );
    // cdk-nag's findings and aws-cdk-lib's CloudFormation validation's (a plugin with findings
    // has a report; the validation's are warnings, which fail no synth).
    const findings = readReport(assembly.directory).pluginReports.flatMap((r) => r.violations);
    expect(findings).toEqual([]);
  });

  it('fail synthesis on a finding nobody acknowledged (the check is live)', () => {
    const app = fixture.app();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    new Queue(new Stack(app, 'Careless'), 'BareQueue');
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS3/);
    const rules = readReport(app.outdir).pluginReports.flatMap((r) =>
      r.violations.map((v) => v.ruleName),
    );
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  it('record a reason with every acknowledged finding', () => {
    const acknowledged = app.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(z.record(z.string(), z.string()).parse(entry.data))),
      );
    const ids = new Set(acknowledged.map(([id]) => id));
    expect([...ids].sort()).toEqual([
      'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      'AwsSolutions::AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
      'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      expect.stringMatching(
        /^AwsSolutions::AwsSolutions-IAM5\[Resource::<RuntimePlanner[0-9A-F]{8}\.Arn>:\*\]$/,
      ),
      'AwsSolutions::AwsSolutions-SMG4',
    ]);
    for (const [id, reason] of acknowledged) expect(reason.length, id).toBeGreaterThan(60);
  });
});
