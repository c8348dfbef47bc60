import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ChangeBridgeConfig } from '../props.ts';

/** The context key of the ARN length CDK assumes for each token when it sizes a role's policy. */
export const ARN_SIZE_ESTIMATE_CONTEXT_KEY = '@aws-cdk/aws-iam.arnSizeEstimate';
/** CDK's own assumption, kept while every ARN here is shorter. */
const DEFAULT_ARN_SIZE_ESTIMATE = 150;
/** `arn:<partition>:<service>:<region>:<account>:` at the longest (aws-us-gov, us-isof-south-1). */
const LONGEST_ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:us-isof-south-1:123456789012:'.length;
/** The longest connection id props take. */
const LONGEST_CONNECTION_ID = 40;
/** The longest logical id assumed of a resource here, in a generated name. */
const LONGEST_LOGICAL_ID = 64;

/**
 * The ARN length each role sizes its policies by. A role moves statements past 10,000
 * characters of its inline policy into managed policies, sizing each token (an ARN resolved
 * at deploy) as 150 characters; a connection secret's ARN is up to 326 (a 200-character
 * prefix), so 20 of them made the poller's and admin function's policies pass IAM's 10,240
 * characters for a role's inline policies while CDK counted under 10,000. The estimate is
 * the longest ARN the policies hold: a connection secret's, or one of a name CloudFormation
 * generates (`<stack>-<logical id>-<random>`: log groups, the table with its `/index/*`).
 */
export function policyArnEstimate(scope: Construct, config: ChangeBridgeConfig): number {
  const secret =
    LONGEST_ARN_PREFIX +
    'secret:'.length +
    `${config.secretNamePrefix}/connections/`.length +
    LONGEST_CONNECTION_ID +
    '-XXXXXX'.length;
  const generated =
    LONGEST_ARN_PREFIX +
    'log-group:'.length +
    Stack.of(scope).stackName.length +
    LONGEST_LOGICAL_ID +
    '--XXXXXXXXXXXXX:*'.length;
  return Math.max(DEFAULT_ARN_SIZE_ESTIMATE, secret, generated);
}
