import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatChaosResult, runChaos } from './run-chaos.ts';

/** `npm run soak -- --minutes 30`: the whole-bridge chaos run for as long as asked. */
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    seed: { type: 'string', default: '7' },
    /** Seconds between SIGKILLs, `low,high` (default 20,60). */
    'kill-every': { type: 'string', default: '20,60' },
    /** A file to write every accepted webhook and the journal to, for diagnosis. */
    dump: { type: 'string' },
    /** Keeps the bridge's data dir after the run and prints where it is. */
    'keep-data-dir': { type: 'boolean', default: false },
    /**
     * Slow spells of the receiver, `every,for,answer` in seconds (e.g. 60,20,4: for 20 s of each
     * minute it answers each request 4 s late, slower than the activity: its line is deferred).
     */
    'slow-spells': { type: 'string' },
    /** Customers in the simulator's dataset (default: the small dataset's 300). */
    customers: { type: 'string' },
    /**
     * Seconds into the chaos to begin an emitting backfill of every customer (with
     * `--customers 20000` it runs for minutes, through SIGKILLs; default: none).
     */
    'backfill-after': { type: 'string' },
    /**
     * Minutes the drain, after the activity stops, waits for the bridge to deliver any more of
     * what is still awaited (default 3); it goes on while deliveries arrive, 30 minutes at most.
     */
    'drain-minutes': { type: 'string', default: '3' },
  },
});
const killEvery = String(values['kill-every'])
  .split(',')
  .map((seconds) => Number(seconds) * 1000);
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error('--minutes must be a positive number');
  process.exit(2);
}
const [killLow, killHigh] = killEvery;
if (
  killEvery.length !== 2 ||
  killLow === undefined ||
  killHigh === undefined ||
  !(killLow > 0 && killHigh >= killLow)
) {
  console.error('--kill-every must be two seconds, low,high, with 0 < low <= high');
  process.exit(2);
}
const spells = values['slow-spells']?.split(',').map((seconds) => Number(seconds) * 1000);
if (spells && (spells.length !== 3 || spells.some((ms) => !(ms > 0)) || spells[1]! > spells[0]!)) {
  console.error('--slow-spells must be three seconds, every,for,answer, with 0 < for <= every');
  process.exit(2);
}
/** A whole number of `name` given, undefined when not given; exits 2 when not a whole number. */
function wholeNumberFlag(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) {
    console.error(`--${name} must be a whole number`);
    process.exit(2);
  }
  return Number(text);
}
const customers = wholeNumberFlag('customers', values.customers);
const backfillAfterSeconds = wholeNumberFlag('backfill-after', values['backfill-after']);
const drainMinutes = wholeNumberFlag('drain-minutes', values['drain-minutes']) ?? 3;
const started = Date.now();
const result = await runChaos({
  ...(spells
    ? { slowSpells: { everyMs: spells[0]!, forMs: spells[1]!, answerMs: spells[2]! } }
    : {}),
  ...(customers === undefined ? {} : { customers }),
  ...(backfillAfterSeconds === undefined ? {} : { backfillAfterMs: backfillAfterSeconds * 1000 }),
  durationMs: minutes * 60_000,
  seed: Number(values.seed),
  activityPerSecond: 5,
  connectorFaultRate: 0.05,
  receiverFailShare: 0.1,
  killEveryMs: [killLow, killHigh],
  drainTimeoutMs: drainMinutes * 60_000,
  keepDataDir: values['keep-data-dir'] === true,
  log: (line) => console.log(line),
});
console.log(formatChaosResult(result));
// Which ones, by type and subject: what to follow through the dump's journal and webhooks.
if (result.missing.length > 0) console.log(`missing: ${result.missing.join(', ')}`);
if (result.backfill && result.backfill.missing.length > 0)
  console.log(`no backfill created: ${result.backfill.missing.join(', ')}`);
if (result.endStateMismatches.length > 0)
  console.log(
    `last delivered event not the record's end state: ${result.endStateMismatches.join(', ')}`,
  );
if (result.updatesAsRestores.length > 0)
  console.log(`delivered as the restore's created: ${result.updatesAsRestores.join(', ')}`);
console.log(
  `receiver failures ${JSON.stringify(result.receiverFailures)}, slow answers ${result.slowAnswers}, rejected signatures ${result.rejectedSignatures}, records back to an earlier state ${result.revisitedStates} (new changes, new ids), final exit ${result.exitCode}, ${((Date.now() - started) / 60_000).toFixed(1)} min`,
);
for (const violation of result.violations) {
  const lastKill = result.killedAt.filter((at) => at <= violation.at).at(-1);
  console.log(
    `Retry-After violation: ${violation.webhookId} arrived ${violation.at - violation.pausedFrom} ms after the 429 (pause ${violation.pausedUntil - violation.pausedFrom} ms)${lastKill === undefined ? '' : `, ${violation.at - lastKill} ms after the last SIGKILL`}${lastKill !== undefined && lastKill > violation.pausedFrom ? ' (killed during the pause)' : ''}`,
  );
}
if (values.dump) {
  const { accepted, journal, killedAt, violations, missing, updatesAsRestores } = result;
  const { endStateMismatches } = result;
  await writeFile(
    values.dump,
    JSON.stringify({
      accepted,
      journal,
      killedAt,
      violations,
      missing,
      updatesAsRestores,
      endStateMismatches,
    }),
  );
}
const clean =
  result.missing.length === 0 &&
  result.endStateMismatches.length === 0 &&
  (result.backfill?.missing.length ?? 0) === 0 &&
  result.duplicateIds === 0 &&
  result.outOfOrder === 0 &&
  result.retryAfterViolations === 0 &&
  result.busiest30s <= 200;
process.exitCode = clean ? 0 : 1;
