// Module hooks of refuse-cdk-constructs.mjs: resolving aws-cdk-lib, any of its modules, or cdk-nag
// throws. aws-cdk-lib/aws-logs stays allowed: infra/props.ts reads the RetentionDays enum from it,
// a module index whose construct classes load only when read.
const REFUSED = /^(aws-cdk-lib|cdk-nag)(\/|$)/;
const ALLOWED = new Set(['aws-cdk-lib/aws-logs']);

export async function resolve(specifier, context, nextResolve) {
  if (REFUSED.test(specifier) && !ALLOWED.has(specifier)) {
    throw new Error(`refuse-cdk-constructs: ${specifier} was imported`);
  }
  return nextResolve(specifier, context);
}
