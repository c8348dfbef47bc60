import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ChangeBridgeMonitoring } from './monitoring.ts';
import { acknowledgeRuntimeFindings, acknowledgeStateFindings } from './nag-acknowledgements.ts';
import { addRuntimeOutputs, addStateOutputs } from './outputs.ts';
import type { ChangeBridgeConfig } from './props.ts';
import { ChangeBridgeRuntime } from './runtime.ts';
import { ChangeBridgeState } from './stateful.ts';

/** Props of {@link StatefulStack}. */
export interface StatefulStackProps extends StackProps {
  config: ChangeBridgeConfig;
}

/**
 * The data: table, bus and archive, queues, key and secrets. Deployed first and rarely;
 * every resource holding data (all but the bus and the queue policies) is retained if the
 * stack is deleted.
 */
export class StatefulStack extends Stack {
  readonly state: ChangeBridgeState;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    this.state = new ChangeBridgeState(this, 'State', { config: props.config });
    // Outputs on the stack itself: their keys are plain names (EventBusName, AdminApiUrl, …).
    addStateOutputs(this.state, this);
    acknowledgeStateFindings(this.state);
  }
}

/** Props of {@link RuntimeStack}. */
export interface RuntimeStackProps extends StackProps {
  config: ChangeBridgeConfig;
  state: ChangeBridgeState;
}

/**
 * The code and its wiring: functions, schedule, rule, admin API, alarms and dashboard.
 * Safe to destroy and redeploy; it references the stateful stack through its exports.
 */
export class RuntimeStack extends Stack {
  readonly runtime: ChangeBridgeRuntime;
  readonly monitoring: ChangeBridgeMonitoring;

  constructor(scope: Construct, id: string, props: RuntimeStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    this.runtime = new ChangeBridgeRuntime(this, 'Runtime', { config, state });
    this.monitoring = new ChangeBridgeMonitoring(this, 'Monitoring', {
      config,
      state,
      runtime: this.runtime,
    });
    addRuntimeOutputs(this.runtime, this.monitoring, this);
    acknowledgeRuntimeFindings(this.runtime);
  }
}
