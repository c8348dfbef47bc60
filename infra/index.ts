/**
 * change-bridge as a CDK library (`import { ChangeBridge } from 'change-bridge/infra'`):
 * the whole bridge in one construct, its parts, and the two-stack layout of the app.
 */
export { AdminHttpApi, type AdminHttpApiProps } from './admin-http-api.ts';
export { BRIDGE_RUNTIME, createBridgeFunction, findProjectRoot } from './bridge-function.ts';
export { ChangeBridge } from './change-bridge.ts';
export { type ChangeBridgeApp, createChangeBridgeApp } from './create-app.ts';
export { BRIDGE_METRICS, SERVICE_DIMENSION, STREAM_DIMENSION } from './metric-names.ts';
export { ChangeBridgeMonitoring, type ChangeBridgeMonitoringProps } from './monitoring.ts';
export {
  type ChangeBridgeConfig,
  type ChangeBridgeProps,
  ChangeBridgePropsSchema,
  type Connection,
  ConnectionSchema,
  DEFAULT_FUNCTIONS_DIR,
  PublishTargetsSchema,
  resolveChangeBridgeProps,
} from './props.ts';
export { ChangeBridgeRuntime, type ChangeBridgeRuntimeProps } from './runtime.ts';
export {
  RuntimeStack,
  type RuntimeStackProps,
  StatefulStack,
  type StatefulStackProps,
} from './stacks.ts';
export { loadStageConfig, STAGES_CONTEXT_KEY, type StageConfig } from './stage-config.ts';
export {
  ChangeBridgeState,
  type ChangeBridgeStateProps,
  VISIBILITY_TIMEOUT_FACTOR,
} from './stateful.ts';
