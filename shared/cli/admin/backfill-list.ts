import type { Command } from 'commander';
import {
  BackfillJobListQuerySchema,
  BackfillJobListSchema,
} from '../../admin/backfill-list-schemas.ts';
import { CliExit, type CliIo, EXIT_USAGE } from '../exit-codes.ts';
import type { AdminApiClient } from './api-client.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';

/** A job as `GET /backfill` lists it. */
type ListedJob = ReturnType<typeof BackfillJobListSchema.parse>['jobs'][number];

/** The jobs one request asks for: the most an answer holds. */
const PAGE_LIMIT = '100';

/** Every job `GET /backfill` lists, newest first, page after page as its `nextCursor` leads. */
async function listEveryJob(client: AdminApiClient): Promise<ListedJob[]> {
  const jobs: ListedJob[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call('GET', '/backfill', BackfillJobListSchema, {
      query: { limit: PAGE_LIMIT, cursor },
      check: { query: BackfillJobListQuerySchema },
    });
    jobs.push(...page.jobs);
    // A page with no job would lead nowhere: the listing ends there.
    cursor = page.jobs.length > 0 ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  return jobs;
}

/** The options of `backfill` itself that `backfill list` shares: where the API is, and --json. */
const SHARED_OPTIONS: ReadonlySet<string> = new Set(['api', 'json']);

/**
 * Exits 2 when a flag of starting or following a backfill (`--emit`, `--entities`…) was given
 * to `backfill list`: `backfill` reads its own flags after `list` too, and one that lists
 * nothing must not pass silently.
 */
function refuseStartOptions(backfill: Command | null): void {
  const given = (backfill?.options ?? [])
    .filter((option) => !SHARED_OPTIONS.has(option.attributeName()))
    .filter((option) => backfill?.getOptionValueSource(option.attributeName()) === 'cli')
    .map((option) => option.long ?? option.flags);
  if (given.length > 0)
    throw new CliExit(
      EXIT_USAGE,
      `backfill list: takes no ${given.join(', ')} (it lists every job)`,
    );
}

/**
 * Adds `backfill list` to the `backfill` command: the jobs kept (7 days), newest first, each as
 * it was started; `backfill --follow ID` shows one's progress.
 */
export function registerBackfillList(backfill: Command, io: CliIo): void {
  withCommonOptions(
    backfill
      .command('list')
      .description(
        'backfill jobs kept (7 days), newest first, wherever they were started; `backfill --follow ID` shows one’s progress',
      ),
  ).action(async (_options: unknown, command: Command) => {
    // `backfill` takes `--api` and `--json` too, and reads them after `list` as its own.
    const options = CommonOptionsSchema.parse(command.optsWithGlobals());
    refuseStartOptions(command.parent);
    const jobs = await listEveryJob(clientFor(options));
    if (options.json) return writeJson(io, jobs);
    if (jobs.length === 0) return io.out('no backfill jobs');
    io.out(
      formatTable(
        ['JOB', 'STARTED', 'EMIT', 'STREAMS', 'ENTITIES'],
        jobs.map((job) => [
          job.id,
          shortTime(job.startedAt),
          job.emit ? 'yes' : 'no',
          String(job.streamCount),
          job.entities.join(','),
        ]),
      ),
    );
    io.out('`change-bridge backfill --follow ID` shows a job’s progress');
  });
}
