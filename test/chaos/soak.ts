import { parseArgs } from 'node:util';
import { formatChaosResult, runChaos } from './run-chaos.ts';

/** `npm run soak -- --minutes 30`: the whole-bridge chaos run for as long as asked. */
const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '30' }, seed: { type: 'string', default: '7' } },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error('--minutes must be a positive number');
  process.exit(2);
}
const started = Date.now();
const result = await runChaos({
  durationMs: minutes * 60_000,
  seed: Number(values.seed),
  activityPerSecond: 5,
  connectorFaultRate: 0.05,
  receiverFailShare: 0.1,
  killEveryMs: [20_000, 60_000],
  drainTimeoutMs: 180_000,
  log: (line) => console.log(line),
});
console.log(formatChaosResult(result));
console.log(
  `receiver failures ${JSON.stringify(result.receiverFailures)}, rejected signatures ${result.rejectedSignatures}, final exit ${result.exitCode}, ${((Date.now() - started) / 60_000).toFixed(1)} min`,
);
const clean =
  result.missing.length === 0 &&
  result.duplicateIds === 0 &&
  result.retryAfterViolations === 0 &&
  result.busiest30s <= 200;
process.exitCode = clean ? 0 : 1;
