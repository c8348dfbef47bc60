import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, type HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** Steady-state request rate of the admin API: it serves operators and the CLI, not traffic. */
const ADMIN_RATE_LIMIT_PER_SECOND = 20;
const ADMIN_BURST_LIMIT = 40;

/**
 * Access log fields, in HTTP API context variables (the REST API's standard set names
 * variables, like `$context.resourcePath`, that HTTP APIs lack).
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  sourceIp: '$context.identity.sourceIp',
  caller: '$context.identity.userArn',
  requestTime: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  status: '$context.status',
  latencyMs: '$context.responseLatency',
  responseLength: '$context.responseLength',
  integrationError: '$context.integrationErrorMessage',
};

/** Options of {@link AdminHttpApi}. */
export interface AdminHttpApiProps {
  handler: IFunction;
  logRetention: RetentionDays;
}

/**
 * The admin API on API Gateway (HTTP API): one `$default` route proxies every method and
 * path to the admin function, which serves the same routes as the local `start` admin
 * API. Callers sign requests with SigV4 (IAM authorization): only principals granted
 * `execute-api:Invoke` on this API get through. Access logs go to their own log group.
 */
export class AdminHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: AdminHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      // Named by its stack (`ChangeBridge-<stage>-Runtime`): two stages in one account would
      // otherwise list two APIs both named `Api`.
      apiName: `${Stack.of(this).stackName}-admin`,
      description: 'change-bridge admin API (IAM authorization)',
      defaultIntegration: new HttpLambdaIntegration('Admin', props.handler),
      defaultAuthorizer: new HttpIamAuthorizer(),
      // The stage below replaces the default one so that it can carry access logs.
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: ADMIN_RATE_LIMIT_PER_SECOND, burstLimit: ADMIN_BURST_LIMIT },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /**
   * The base URL of the API, without a trailing slash (`https://<id>.execute-api.<region>.amazonaws.com`):
   * README appends paths to it (`"$ADMIN_API_URL/subscriptions"`), and the stage's URL, which
   * ends in `/`, would make them `//subscriptions`, a path no route matches.
   */
  get url(): string {
    return this.api.apiEndpoint;
  }
}
