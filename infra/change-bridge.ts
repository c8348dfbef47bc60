import { Construct } from 'constructs';
import { ChangeBridgeMonitoring } from './monitoring.ts';
import { acknowledgeRuntimeFindings, acknowledgeStateFindings } from './nag-acknowledgements.ts';
import { addRuntimeOutputs, addStateOutputs } from './outputs.ts';
import {
  type ChangeBridgeConfig,
  type ChangeBridgeProps,
  resolveChangeBridgeProps,
} from './props.ts';
import { ChangeBridgeRuntime } from './runtime.ts';
import { ChangeBridgeState } from './stateful.ts';

export type { ChangeBridgeProps } from './props.ts';

/**
 * The whole bridge in one construct, to embed in an existing CDK app:
 * `new ChangeBridge(stack, 'Bridge', { connections: [{ id: 'main' }] })`.
 * Inside, the stateful resources ({@link ChangeBridgeState}) and the stateless runtime
 * ({@link ChangeBridgeRuntime}, {@link ChangeBridgeMonitoring}) stay separate constructs;
 * the bundled app puts them in two stacks instead (see stacks.ts).
 * @throws ValidationError when the props break {@link ChangeBridgePropsSchema}, naming the field.
 */
export class ChangeBridge extends Construct {
  readonly config: ChangeBridgeConfig;
  readonly state: ChangeBridgeState;
  readonly runtime: ChangeBridgeRuntime;
  readonly monitoring: ChangeBridgeMonitoring;

  constructor(scope: Construct, id: string, props: ChangeBridgeProps) {
    super(scope, id);
    const config = resolveChangeBridgeProps(props);
    this.config = config;
    this.state = new ChangeBridgeState(this, 'State', { config });
    this.runtime = new ChangeBridgeRuntime(this, 'Runtime', { config, state: this.state });
    this.monitoring = new ChangeBridgeMonitoring(this, 'Monitoring', {
      config,
      state: this.state,
      runtime: this.runtime,
    });
    addStateOutputs(this.state);
    addRuntimeOutputs(this.runtime, this.monitoring);
    acknowledgeStateFindings(this.state);
    acknowledgeRuntimeFindings(this.runtime);
  }
}
