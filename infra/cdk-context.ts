/** The environment variable the CDK CLI passes context in (`-c`, cdk.json, cdk.context.json). */
export const CDK_CONTEXT_ENV = 'CDK_CONTEXT_JSON';

/** The environment variable naming the file the CDK CLI writes context to when it is too large for the environment. */
export const CDK_CONTEXT_FILE_ENV = 'CONTEXT_OVERFLOW_LOCATION_ENV';

/**
 * The context an `App` built without props reads, the way aws-cdk-lib's `App` reads it: the
 * JSON in `CDK_CONTEXT_JSON`, then the file named by `CONTEXT_OVERFLOW_LOCATION_ENV` over it.
 * Lets the app entry check its settings before it loads aws-cdk-lib.
 * @param readJsonFile reads and parses the overflow file (`JSON.parse(readFileSync(path))`).
 * @example readCdkContext(process.env, (path) => JSON.parse(readFileSync(path, 'utf8')))
 */
export function readCdkContext(
  env: Record<string, string | undefined>,
  readJsonFile: (path: string) => unknown,
): Record<string, unknown> {
  const json = env[CDK_CONTEXT_ENV];
  const file = env[CDK_CONTEXT_FILE_ENV];
  return {
    ...(json ? (JSON.parse(json) as Record<string, unknown>) : {}),
    ...(file ? (readJsonFile(file) as Record<string, unknown>) : {}),
  };
}
