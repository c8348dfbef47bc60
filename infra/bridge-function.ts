import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { environmentProblems, type ResolvedLengths } from './environment-limit.ts';

/** The Lambda runtime of every function: the newest Node.js that aws-cdk-lib 2.276 offers. */
export const BRIDGE_RUNTIME = Runtime.NODEJS_24_X;

/**
 * esbuild emits ESM, where `require` does not exist; bundled CommonJS dependencies
 * (parts of the AWS SDK) still call it, so the bundle defines one.
 */
const REQUIRE_SHIM_BANNER =
  "import { createRequire as __bridgeCreateRequire } from 'node:module';" +
  'const require = __bridgeCreateRequire(import.meta.url);';

const LOCK_FILES = ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb', 'bun.lock'];

/** Options of one bridge Lambda function. */
export interface BridgeFunctionOptions {
  /** Absolute path of the handler file; it exports `handler`. */
  entry: string;
  description: string;
  timeout: Duration;
  memorySize: number;
  environment: Record<string, string>;
  /**
   * The longest each token of `environment` resolves to: synth fails when the environment can
   * pass Lambda's 4 KB, which would otherwise fail the deploy.
   */
  resolvedLengths: ResolvedLengths;
  logRetention: RetentionDays;
  /**
   * Folders copied beside the bundle (`to` is relative to it), for files the code reads at
   * run time, such as the operator console's page and scripts.
   */
  copyDirs?: readonly { from: string; to: string }[];
}

/** A path quoted for the shell that runs CDK's bundling hooks. */
function shellQuote(path: string): string {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * Finds the folder esbuild bundles from: the nearest ancestor of `dir` holding a lock
 * file (the repository, or the app that installed change-bridge under node_modules).
 * @throws Error when no ancestor has a lock file.
 */
export function findProjectRoot(dir: string): { projectRoot: string; depsLockFilePath: string } {
  let current = resolve(dir);
  for (;;) {
    for (const name of LOCK_FILES) {
      const candidate = join(current, name);
      if (existsSync(candidate)) return { projectRoot: current, depsLockFilePath: candidate };
    }
    const parent = dirname(current);
    if (parent === current) throw new Error(`No lock file in ${dir} or any parent folder`);
    current = parent;
  }
}

/**
 * A NodejsFunction on arm64 and the current Node runtime, bundled by the local esbuild
 * (never Docker) as minified ESM with source maps, with its own log group (retention
 * set, retained on delete) and its own role that can write only to that log group.
 * Callers add data permissions with the resources' grant methods.
 */
export function createBridgeFunction(
  scope: Construct,
  id: string,
  options: BridgeFunctionOptions,
): NodejsFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: options.logRetention,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // An explicit role instead of AWSLambdaBasicExecutionRole, whose logs:* grant covers
  // every log group of the account.
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `change-bridge ${id} function`,
  });
  logGroup.grantWrite(role);

  const { projectRoot, depsLockFilePath } = findProjectRoot(dirname(options.entry));
  // Stack traces point into the TypeScript sources through the bundled source maps.
  const environment = { ...options.environment, NODE_OPTIONS: '--enable-source-maps' };
  const fn = new NodejsFunction(scope, id, {
    entry: options.entry,
    handler: 'handler',
    description: options.description,
    runtime: BRIDGE_RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role,
    logGroup,
    environment,
    projectRoot,
    depsLockFilePath,
    bundling: {
      forceDockerBundling: false,
      format: OutputFormat.ESM,
      banner: REQUIRE_SHIM_BANNER,
      mainFields: ['module', 'main'],
      minify: true,
      sourceMap: true,
      // Bundle the AWS SDK too: the version tested here, not whatever the runtime ships.
      externalModules: [],
      ...(options.copyDirs?.length
        ? {
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (_inputDir: string, outputDir: string) =>
                (options.copyDirs ?? []).map(
                  ({ from, to }) => `cp -R ${shellQuote(from)} ${shellQuote(join(outputDir, to))}`,
                ),
            },
          }
        : {}),
    },
  });
  fn.node.addValidation({
    validate: () => environmentProblems(environment, options.resolvedLengths),
  });
  return fn;
}
