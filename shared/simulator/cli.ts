import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { CliExit, EXIT_FAILURE } from '../cli/exit-codes.ts';
import { withStopSignal } from '../cli/stop-signal.ts';
import { configurationError } from '../configuration-error.ts';
import { formatIssuePath } from '../errors.ts';
import { withoutFetchBlockedPorts } from '../fetch-blocked-ports.ts';
import { plainMessage } from '../plain-message.ts';
import { SIM_MAX_ACTIVITY_PER_SECOND } from './activity.ts';
import { enterpriseIndexOfToken } from './enterprise-tokens.ts';
import { formatProductSample, productSamples } from './product-samples.ts';
import type { RunningSimulator } from './simulator.ts';

/**
 * A flag's number written in decimal (`4010`, `-3`, `0.5`, `1e3`). Coercion took `''` and
 * `' '` for 0 and `0x1f` for 31: `--port ''` listened on a random port.
 */
function decimal<T extends z.ZodNumber>(number: T) {
  return z
    .string()
    .regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, { error: 'must be a decimal number' })
    .transform(Number)
    .pipe(number);
}

const SimulatorFlagsSchema = z
  .object({
    port: decimal(
      withoutFetchBlockedPorts(
        z.number().int().min(0).max(65_535),
        'neither a bridge nor call could reach the simulator',
      ),
    ).default(4010),
    seed: decimal(z.number().int()).default(1),
    size: z.enum(['small', 'medium', 'large']).default('small'),
    enterprises: decimal(z.number().int().min(1).max(10_000)).default(3),
    chainPerEnterprise: z.boolean().default(false),
    tokensFile: z.string().min(1).optional(),
    activity: decimal(z.number().min(0).max(SIM_MAX_ACTIVITY_PER_SECOND)).default(1),
    faults: decimal(z.number().min(0).max(1)).default(0),
    clientToken: z.string().min(1).default('sim-client-token'),
    accessToken: z.string().min(1).default('sim-access-token'),
    portfolioToken: z.string().min(1).default('sim-portfolio-token'),
  })
  .superRefine((flags, ctx) => {
    // AccessTokens are looked up first: a Portfolio token equal to one would act as that enterprise's.
    const index = enterpriseIndexOfToken(
      flags.accessToken,
      flags.enterprises,
      flags.portfolioToken,
    );
    if (index >= 0)
      ctx.addIssue({
        code: 'custom',
        path: ['portfolioToken'],
        message: `must differ from every enterprise AccessToken (--access-token and its -2, -3, … forms); it is enterprise ${index + 1}'s`,
      });
  });

/** Maps parsed option names to the flags a user typed, for error messages. */
const FLAG_NAMES: Readonly<Record<string, string>> = {
  clientToken: '--client-token',
  accessToken: '--access-token',
  portfolioToken: '--portfolio-token',
  tokensFile: '--tokens-file',
  chainPerEnterprise: '--chain-per-enterprise',
};

/**
 * Adds `simulator [--port 4010] [--seed N] [--size small|medium|large] [--enterprises N]
 * [--chain-per-enterprise] [--tokens-file PATH] [--activity PER_SECOND]
 * [--faults RATE] [--client-token T] [--access-token T] [--portfolio-token T]` (design.md, CLI).
 * It prints the base URL and the tokens, and stops cleanly on SIGINT and SIGTERM. A bad flag
 * exits with code 2 and names the flag.
 */
export function registerSimulatorCommand(program: Command): void {
  program
    .command('simulator')
    .description('run the Connector API simulator (a seeded hotel chain with live activity)')
    .option('--port <port>', 'TCP port', '4010')
    .option('--seed <n>', 'dataset and activity seed', '1')
    .option('--size <size>', 'dataset size: small, medium or large', 'small')
    .option('--enterprises <n>', 'enterprises (properties), each with its own AccessToken', '3')
    .option(
      '--chain-per-enterprise',
      'every enterprise a chain of its own (independent hotels: own customers, notes, programs)',
    )
    .option('--tokens-file <path>', 'write every enterprise AccessToken to this JSON file')
    .option(
      '--activity <perSecond>',
      'background mutations per second (0 for none, at most 1000)',
      '1',
    )
    .option('--faults <rate>', 'share of requests that get an injected fault (0 to 1)', '0')
    .option('--client-token <token>', 'accepted ClientToken', 'sim-client-token')
    .option('--access-token <token>', 'accepted AccessToken', 'sim-access-token')
    .option('--portfolio-token <token>', 'accepted Portfolio Access Token', 'sim-portfolio-token')
    // Watched from the first moment: a signal while the simulator starts stops it once started.
    .action((raw: unknown, command: Command) =>
      withStopSignal((stopSignal) => runSimulator(raw, command, stopSignal)),
    );
}

/** Starts the simulator, prints its URL and tokens, and stops it on `stopSignal`. */
async function runSimulator(
  raw: unknown,
  command: Command,
  stopSignal: Promise<NodeJS.Signals>,
): Promise<void> {
  const parsed = SimulatorFlagsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue ? formatIssuePath(issue.path) : '';
    const flag = FLAG_NAMES[key] ?? `--${key}`;
    const why = issue ? plainMessage(issue) : 'invalid value';
    command.error(`error: ${configurationError(flag, why).message}`, {
      exitCode: 2,
    });
    return;
  }
  const flags = parsed.data;
  // Loaded when the command runs: every other command of the CLI carries none of it.
  const { startSimulator } = await import('./simulator.ts');
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator({
      port: flags.port,
      seed: flags.seed,
      size: flags.size,
      enterprises: flags.enterprises,
      chainPerEnterprise: flags.chainPerEnterprise,
      activity: flags.activity > 0 ? { perSecond: flags.activity } : false,
      faults: { rate: flags.faults },
      tokens: {
        clientToken: flags.clientToken,
        accessToken: flags.accessToken,
        portfolioToken: flags.portfolioToken,
      },
    });
  } catch (error) {
    throw listenFailure(error, flags.port);
  }
  const world = simulator.controls.model.world;
  if (flags.tokensFile) {
    try {
      await writeTokensFile(flags.tokensFile, simulator);
    } catch (error) {
      // Nothing half-started is left running: the simulator stops, the command fails.
      await simulator.close();
      throw new CliExit(
        EXIT_FAILURE,
        `--tokens-file: cannot write ${flags.tokensFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  process.stdout.write(
    [
      `Connector API simulator listening on ${simulator.url}`,
      `  operations:      ${simulator.url}/api/connector/v1/<entity>/<operation>`,
      `  journal:         ${simulator.url}/_sim/journal (?since=SEQ for the entries after SEQ)`,
      `  ClientToken:     ${simulator.tokens.clientToken}`,
      `  AccessToken:     ${simulator.tokens.accessToken} (enterprise ${world.enterprises[0]!.Id})`,
      `  enterprises:     ${world.enterprises.length}, each with its own AccessToken: ${simulator.url}/_sim/tokens${flags.tokensFile ? ` and ${flags.tokensFile}` : ''}`,
      `  Portfolio token: ${simulator.tokens.portfolioToken} (${world.chainIds.length === 1 ? `chain ${world.chainId}` : `${world.chainIds.length} chains`})`,
      `  dataset: ${flags.size}, seed ${flags.seed}; activity ${flags.activity}/s; faults ${flags.faults}`,
      '  products (products/getPricing with the AccessToken):',
      ...productSamples(world, 3).map((sample) => `    ${formatProductSample(sample)}`),
      '',
    ].join('\n'),
  );
  await stopSignal;
  await simulator.close();
  process.stdout.write('simulator stopped\n');
}

/** Writes the same JSON as `GET /_sim/tokens` (mode 0600: the file holds tokens). */
async function writeTokensFile(path: string, simulator: RunningSimulator): Promise<void> {
  const body = {
    url: simulator.url,
    clientToken: simulator.tokens.clientToken,
    portfolioToken: simulator.tokens.portfolioToken,
    enterprises: simulator.enterpriseTokens,
  };
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
}

/**
 * A port another program holds, or one this user may not bind, named by its flag (as `start`
 * names it); other errors unchanged.
 */
function listenFailure(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  const problem =
    code === 'EADDRINUSE'
      ? 'is in use (EADDRINUSE: another simulator, or another program, listens there)'
      : 'may not be bound by this user (EACCES)';
  return new CliExit(
    EXIT_FAILURE,
    `--port ${port}: 127.0.0.1:${port} ${problem}; choose another port with --port (0: any free port)`,
  );
}
