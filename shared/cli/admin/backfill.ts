import type { Command } from 'commander';
import { z } from 'zod';
import { listedBackfillStreams } from '../../admin/backfill-streams-listed.ts';
import type { BackfillJobView } from '../../admin/backfill-view.ts';
import {
  BackfillBodySchema,
  BackfillJobViewSchema,
  BackfillProgressQuerySchema,
} from '../../admin/schemas.ts';
import { systemClock } from '../../clock.ts';
import { configurationError } from '../../configuration-error.ts';
import { DurationSchema } from '../../duration.ts';
import { formatCount, paletteFor } from '../../local/terminal.ts';
import { CliExit, type CliIo, EXIT_FAILURE, EXIT_USAGE, processIo } from '../exit-codes.ts';
import { ADMIN_DELETE_TIMEOUT_MS, AdminUnreachable } from './api-client.ts';
import { refuseUnbackfillableConnections } from './backfill-connections.ts';
import { registerBackfillList } from './backfill-list.ts';
import {
  type ProgressMode,
  pendingText,
  progressRenderer,
  STREAM_LINES_MAX,
  streamCountsOf,
} from './backfill-progress.ts';
import { type DeliveryVerdict, deliveryWaiter } from './delivery-wait.ts';
import { followUntilStopped } from './follow-interrupt.ts';
import { shapedSegment } from './id-shapes.ts';
import { CommonOptionsSchema, clientFor, segment, withCommonOptions } from './output.ts';

const BackfillOptionsSchema = CommonOptionsSchema.extend({
  entities: z.string().optional(),
  connection: z.string().optional(),
  emit: z.boolean().optional(),
  follow: z.string().optional(),
  pollInterval: z.string().default('1s'),
});

/**
 * `--poll-interval`: as `start` takes POLL_INTERVAL, at least 100ms (a bare number is
 * milliseconds: `1` would read the job every millisecond); at most what a timer waits, past
 * which node waits 1 ms instead.
 */
const PollIntervalSchema = DurationSchema.pipe(
  z
    .number()
    .min(100, { error: 'must be at least 100ms (a bare number is milliseconds)' })
    .max(2 ** 31 - 1, { error: 'must be at most 24d' }),
);

/** How long `backfill` waits for a bridge that stopped answering (a restart) before it gives up. */
export const BRIDGE_RESTART_WAIT_MS = 60_000;

/**
 * How long `backfill`, once every stream is read, waits for webhooks that stopped moving (none
 * delivered or dead-lettered) before it gives up and says what is pending: its wait limit.
 */
export const DELIVERY_STALL_LIMIT_MS = BRIDGE_RESTART_WAIT_MS;

/**
 * Reads the job, waiting out a bridge restart: while the admin API gives no answer at all, the
 * read is retried every second for up to {@link BRIDGE_RESTART_WAIT_MS} (the job resumes with
 * the bridge), with one notice on stderr; then the unreachable error stands.
 */
async function readAcrossRestart<T>(
  read: () => Promise<T>,
  io: CliIo,
  stop?: AbortSignal,
): Promise<T> {
  let giveUpAt: number | undefined;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof AdminUnreachable)) throw error;
      const now = systemClock.now();
      if (giveUpAt === undefined) {
        giveUpAt = now + BRIDGE_RESTART_WAIT_MS;
        io.err('the bridge does not answer; waiting for it to come back (the job resumes with it)');
      }
      if (now >= giveUpAt) throw error;
      await systemClock.sleep(1_000, stop);
    }
  }
}

/** How the user follows a job again once the command has ended. Pure. */
function followHint(jobId: string): string {
  return `\`change-bridge backfill --follow ${jobId}\` follows the job again`;
}

/** The most streams the exit message names; it counts the others. */
const UNFINISHED_NAMED_MAX = 20;

/** Why a stream's part ended (or waits) without completing, for the exit message. */
function describeEnd(stream: BackfillJobView['streams'][number]): string {
  if (!stream.done) return `${stream.streamId} (parked: ${stream.lastError ?? 'see streams list'})`;
  return stream.endedBy === 'removed'
    ? `${stream.streamId} (its connection was removed or disabled)`
    : `${stream.streamId} (a later backfill or reset of the stream took over)`;
}

/**
 * Adds `backfill [--entities customer,resource] [--emit]` (design.md, CLI): resets the
 * chosen streams for a first sync through the admin API, then polls the job until every
 * stream has caught up and the webhooks of its events are delivered or dead-lettered, showing a
 * bar per stream, records read, events published, webhooks delivered and the time left (see
 * {@link progressRenderer}); with `--json`, one JSON line per sample, the last one the final
 * state. Exits 1 once only parked streams are left (the others are watched to the end first),
 * when a stream's part ended without completing (its connection removed, or a later backfill
 * took over), or when, every stream read, its webhooks stop moving for
 * {@link DELIVERY_STALL_LIMIT_MS}, saying how many are still to be delivered.
 */
export function registerBackfillCommand(program: Command, io: CliIo): void {
  const backfill = withCommonOptions(
    program
      .command('backfill')
      .description(
        'sync streams again from the history start (with --emit as created events), showing records read, events published, webhooks delivered and the time left',
      )
      .option(
        '--entities <types>',
        'comma-separated entity types, e.g. customer,resource (default: all polled)',
      )
      .option(
        '--connection <ids>',
        'comma-separated connection ids, e.g. local,chain-eu (default: every enabled connection)',
      )
      .option('--emit', 'publish created events for every record (default: store silently)')
      .option(
        '--follow <id>',
        'follow a job already started (its bf_ id) to its end instead of starting one, e.g. after a restart',
      )
      .option(
        '--poll-interval <duration>',
        'how often progress is read, e.g. 500ms, 2s (at least 100ms)',
        '1s',
      )
      .addHelpText(
        'after',
        '\nWith --json, prints one JSON object per progress sample (NDJSON), the last line the final state.',
      ),
    'print one JSON object per progress sample (NDJSON) instead of the progress line',
  );
  registerBackfillList(backfill, io);
  backfill.action(async (raw: unknown) => {
    const options = BackfillOptionsSchema.parse(raw);
    const interval = PollIntervalSchema.safeParse(options.pollInterval);
    // Said as start says its --poll-interval (`configuration is invalid: --poll-interval: …`).
    if (!interval.success) {
      const why = interval.error.issues[0]?.message ?? 'is not a duration';
      throw configurationError('--poll-interval', why, interval.error);
    }
    if (
      options.follow !== undefined &&
      (options.entities !== undefined || options.connection !== undefined || options.emit)
    ) {
      throw new CliExit(
        EXIT_USAGE,
        '--follow: follows a job as it was started, so takes no --entities, --connection or --emit',
      );
    }
    // Named as the user typed it, before anything is sent: an empty id or `.`/`..` would name
    // another route, and an id not shaped as the bridge makes them names no job (a 404, exit 1).
    if (options.follow !== undefined) shapedSegment('backfill', options.follow, '--follow');
    const client = clientFor(options);
    const readJob = (id: string, streams?: number) =>
      client.call('GET', `/backfill/${segment(id)}`, BackfillJobViewSchema, {
        query: { streams: streams === undefined ? undefined : String(streams) },
        check: { query: BackfillProgressQuerySchema },
      });
    let job =
      options.follow !== undefined
        ? await readAcrossRestart(() => readJob(options.follow as string), io)
        : await client
            .call('POST', '/backfill', BackfillJobViewSchema, {
              body: {
                ...(options.entities !== undefined ? { entities: options.entities } : {}),
                ...(options.connection !== undefined ? { connections: options.connection } : {}),
                emit: options.emit === true,
              },
              check: { body: BackfillBodySchema },
              flags: { entities: '--entities', connections: '--connection' },
              // A stream that had not completed its first sync is reset (its snapshots deleted, as by
              // `streams reset`) before the job is answered: tens of thousands take more than 30 s.
              timeoutMs: ADMIN_DELETE_TIMEOUT_MS,
            })
            .catch(async (error: unknown) => {
              if (error instanceof CliExit && error.code === EXIT_USAGE && options.connection)
                await refuseUnbackfillableConnections(client, options.connection);
              throw error;
            });
    const tty = !options.json && io === processIo && process.stdout.isTTY === true;
    const mode: ProgressMode = options.json ? 'json' : tty ? 'tty' : 'plain';
    const render = progressRenderer(
      mode,
      (text) => io.out(text),
      paletteFor(tty, process.env),
      () => process.stdout.columns,
    );
    const total = streamCountsOf(job).total;
    // A job of many streams is followed by its totals (`--json` prints every stream, as
    // documented); a bridge that answers no streamCounts takes no `streams` parameter either.
    const totalsOnly = !options.json && job.streamCounts !== undefined && total > STREAM_LINES_MAX;
    // Ctrl-C ends the watch, not the job: the bridge runs it on.
    const stopped = (signal: NodeJS.Signals) =>
      `stopped following on ${signal}: backfill ${job.id} keeps running in the bridge; ${followHint(job.id)}`;
    await followUntilStopped(io, stopped, async (stop) => {
      const read = (streams?: number) =>
        readAcrossRestart(() => readJob(job.id, streams), io, stop).catch((error: unknown) => {
          if (!(error instanceof AdminUnreachable)) throw error;
          throw new AdminUnreachable(`${error.message}; ${followHint(job.id)}`);
        });
      if (!options.json) {
        io.out(
          `Backfill ${job.id}: ${formatCount(total)} stream${total === 1 ? '' : 's'}${job.emit ? ', emitting created events' : ''}`,
        );
      }
      const delivery = deliveryWaiter(DELIVERY_STALL_LIMIT_MS);
      let verdict: DeliveryVerdict = 'wait';
      for (;;) {
        // The start's answer lists every stream: shown as the totals the next reads answer.
        render(totalsOnly ? listedBackfillStreams(job, { limit: 0 }) : job);
        const counts = streamCountsOf(job);
        if (job.done) {
          // A part that ended without completing is told at once; otherwise the job is followed
          // until its webhooks are delivered or dead-lettered, or stop moving.
          if (counts.ended > 0) break;
          verdict = delivery(job, systemClock.now());
          if (verdict !== 'wait') break;
        }
        // Parked streams wait for an operator; the others are watched to their end first.
        else if (counts.reading === 0) break;
        await systemClock.sleep(interval.data, stop);
        job = await read(totalsOnly ? 0 : undefined);
      }
      const counts = streamCountsOf(job);
      const unfinishedCount = counts.total - counts.caughtUp;
      if (unfinishedCount > 0) {
        // The unfinished streams come first in an answer that leaves streams out.
        const named = job.streamsLeftOut ? await read(UNFINISHED_NAMED_MAX) : job;
        const unfinished = named.streams.filter((s) => !s.done || s.endedBy !== null);
        const more =
          unfinishedCount > unfinished.length
            ? ` and ${formatCount(unfinishedCount - unfinished.length)} more`
            : '';
        throw new CliExit(
          EXIT_FAILURE,
          `backfill ${job.id} ended without completing ${unfinished.map(describeEnd).join(', ')}${more} (${counts.caughtUp} of ${counts.total} streams caught up)`,
        );
      }
      if (verdict === 'stalled') {
        throw new CliExit(
          EXIT_FAILURE,
          `backfill ${job.id} read every stream, but has ${pendingText(job)}, and they have not gone down for ${DELIVERY_STALL_LIMIT_MS / 1000} s (a receiver down waits for its retries; see \`deliveries list\`); GET /backfill/${job.id} keeps counting them, and ${followHint(job.id)}`,
        );
      }
      if (options.json) return;
      const dead =
        job.webhooksDeadLettered > 0
          ? `, ${formatCount(job.webhooksDeadLettered)} dead-lettered (\`deliveries redeliver\` sends them again)`
          : '';
      io.out(
        `Backfill ${job.id} done: every stream has caught up; ${formatCount(job.webhooksDelivered)} webhook${job.webhooksDelivered === 1 ? '' : 's'} delivered${dead}`,
      );
    });
  });
}
