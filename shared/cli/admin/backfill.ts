import type { Command } from 'commander';
import { z } from 'zod';
import { BackfillJobViewSchema } from '../../admin/schemas.ts';
import { systemClock } from '../../clock.ts';
import { DurationSchema } from '../../duration.ts';
import { type Palette, paletteFor, progressBar } from '../../local/terminal.ts';
import { CliExit, type CliIo, EXIT_FAILURE, EXIT_USAGE, processIo } from '../exit-codes.ts';
import { CommonOptionsSchema, clientFor, segment, withCommonOptions, writeJson } from './output.ts';

/** A backfill job as the API reports it. */
type BackfillJobView = z.infer<typeof BackfillJobViewSchema>;

const BackfillOptionsSchema = CommonOptionsSchema.extend({
  entities: z.string().optional(),
  emit: z.boolean().optional(),
  pollInterval: z.string().default('1s'),
});

const BAR_WIDTH = 30;
/** Plain (non-TTY) output prints a stream again when it moved by this much. */
const PLAIN_STEP = 0.1;

function barLines(job: BackfillJobView, palette: Palette): string[] {
  const width = Math.max(...job.streams.map((s) => s.streamId.length));
  return [
    ...job.streams.map((s) => {
      const label = s.streamId.padEnd(width);
      const line = progressBar(s.fraction, BAR_WIDTH, label);
      if (s.parked) return palette.red(`${line}  parked`);
      return s.done ? palette.green(line) : line;
    }),
    palette.bold(progressBar(job.fraction, BAR_WIDTH, 'total')),
  ];
}

/** Draws progress: bars redrawn in place on a TTY, a plain line per stream step otherwise. */
function progressRenderer(io: CliIo, tty: boolean) {
  const palette = paletteFor(tty, process.env);
  let drawn = 0;
  const shown = new Map<string, number>();
  return (job: BackfillJobView): void => {
    if (tty) {
      const lines = barLines(job, palette);
      // Move up over the previous drawing and clear each line before rewriting it.
      const up = drawn > 0 ? `\u001b[${drawn}A` : '';
      io.out(`${up}${lines.map((line) => `\u001b[2K${line}`).join('\n')}`);
      drawn = lines.length;
      return;
    }
    for (const stream of job.streams) {
      const last = shown.get(stream.streamId);
      const moved = last === undefined || stream.fraction - last >= PLAIN_STEP;
      if (!moved && !(stream.done && last !== 1)) continue;
      shown.set(stream.streamId, stream.done ? 1 : stream.fraction);
      io.out(progressBar(stream.done ? 1 : stream.fraction, BAR_WIDTH, stream.streamId));
    }
  };
}

/**
 * Adds `backfill [--entities customer,resource] [--emit]` (design.md, CLI): resets the
 * chosen streams for a first sync through the admin API, then polls the job and draws a
 * progress bar per stream until every stream has caught up. Exits 1 when a stream parks.
 */
export function registerBackfillCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('backfill')
      .description(
        'sync streams again from the history start (with --emit as created events), with a progress bar',
      )
      .option(
        '--entities <types>',
        'comma-separated entity types, e.g. customer,resource (default: all polled)',
      )
      .option('--emit', 'publish created events for every record (default: store silently)')
      .option('--poll-interval <duration>', 'how often progress is read, e.g. 500ms, 2s', '1s'),
  ).action(async (raw: unknown) => {
    const options = BackfillOptionsSchema.parse(raw);
    const interval = DurationSchema.safeParse(options.pollInterval);
    if (!interval.success || interval.data <= 0) {
      throw new CliExit(
        EXIT_USAGE,
        `invalid --poll-interval: "${options.pollInterval}" is not a duration such as 1s`,
      );
    }
    const client = clientFor(options);
    let job = await client.call('POST', '/backfill', BackfillJobViewSchema, {
      body: {
        ...(options.entities !== undefined ? { entities: options.entities } : {}),
        emit: options.emit === true,
      },
    });
    const tty = !options.json && io === processIo && process.stdout.isTTY === true;
    const render = options.json ? undefined : progressRenderer(io, tty);
    if (!options.json) {
      io.out(
        `Backfill ${job.id}: ${job.streams.length} streams${job.emit ? ', emitting created events' : ''}`,
      );
    }
    for (;;) {
      render?.(job);
      if (job.done) break;
      const parked = job.streams.find((s) => s.parked);
      if (parked) {
        throw new CliExit(
          EXIT_FAILURE,
          `stream ${parked.streamId} is parked: ${parked.lastError ?? 'see streams list'}`,
        );
      }
      await systemClock.sleep(interval.data);
      job = await client.call('GET', `/backfill/${segment(job.id)}`, BackfillJobViewSchema);
    }
    if (options.json) return writeJson(io, job);
    io.out(`Backfill ${job.id} done: every stream has caught up`);
  });
}
