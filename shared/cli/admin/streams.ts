import type { Command } from 'commander';
import { z } from 'zod';
import {
  type BudgetViewSchema,
  StreamListQuerySchema,
  StreamListSchema,
  StreamViewSchema,
} from '../../admin/schemas.ts';
import { StreamIdSchema } from '../../connections/connection.ts';
import type { CliIo } from '../exit-codes.ts';
import { ADMIN_DELETE_TIMEOUT_MS, type AdminApiClient, checkInput } from './api-client.ts';
import { requireFilterTarget } from './filter-target.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  segment,
  shortLag,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';
import { streamStateText } from './stream-state.ts';

const ListOptionsSchema = CommonOptionsSchema.extend({ connection: z.string().optional() });

/** One answer of `GET /streams`. */
type StreamList = z.infer<typeof StreamListSchema>;

/** One connection's connector budget in a line: used of the limit, live reserve, queued, pause. */
function budgetLine(budget: z.infer<typeof BudgetViewSchema>): string {
  const paused = budget.pausedUntil ? `, paused until ${shortTime(budget.pausedUntil)}` : '';
  return `connector budget of ${budget.connectionId}: ${budget.requestsInWindow} of ${budget.limit} requests in the last 30 s, live reserve ${budget.liveReserve}, queued ${budget.queued.live} live and ${budget.queued.bulk} bulk${paused}`;
}

/**
 * Every stream `GET /streams` lists (of one connection, if named), page after page as its
 * `nextCursor` leads, in its order; the connector budgets the pages carry (each those of its
 * streams' connections), one per connection, as first given.
 */
async function listEveryStream(
  client: AdminApiClient,
  connectionId: string | undefined,
): Promise<Pick<StreamList, 'streams' | 'budgets'>> {
  const streams: StreamList['streams'] = [];
  let budgets: Map<string, NonNullable<StreamList['budgets']>[number]> | undefined;
  let cursor: string | undefined;
  do {
    const page: StreamList = await client.call('GET', '/streams', StreamListSchema, {
      query: { connectionId, cursor },
      check: { query: StreamListQuerySchema },
      flags: { connectionId: '--connection' },
    });
    streams.push(...page.streams);
    if (page.budgets) {
      budgets ??= new Map();
      for (const budget of page.budgets)
        if (!budgets.has(budget.connectionId)) budgets.set(budget.connectionId, budget);
    }
    // A page with no stream would lead nowhere: the listing ends there.
    cursor = page.streams.length > 0 ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  return { streams, ...(budgets ? { budgets: [...budgets.values()] } : {}) };
}

/**
 * Adds `streams list [--connection ID]` (a connection that does not exist, and has no streams
 * kept, exits 1) and `streams reset STREAM` (design.md, CLI).
 */
export function registerStreamCommands(program: Command, io: CliIo): void {
  const group = program
    .command('streams')
    .description('poll streams (one connection and entity type each): watermarks, lag, errors');

  withCommonOptions(
    group
      .command('list')
      .description('streams with watermark, last poll, lag and errors')
      .option('--connection <id>', 'only this connection’s streams and budget'),
  ).action(async (raw: unknown) => {
    const options = ListOptionsSchema.parse(raw);
    const client = clientFor(options);
    const { streams, budgets } = await listEveryStream(client, options.connection);
    if (streams.length === 0 && options.connection !== undefined)
      await requireFilterTarget(client, 'connection', options.connection, '--connection');
    // The budget lines the text shows, carried by each stream of the connection (null: none
    // reported, as in AWS), so the document stays the array of streams.
    if (options.json) {
      const budgetOf = new Map((budgets ?? []).map((b) => [b.connectionId, b]));
      return writeJson(
        io,
        streams.map((s) => ({ ...s, budget: budgetOf.get(s.connectionId) ?? null })),
      );
    }
    if (streams.length === 0) return io.out('no streams');
    for (const budget of budgets ?? []) io.out(budgetLine(budget));
    io.out(
      formatTable(
        ['STREAM', 'WATERMARK', 'LAST POLL', 'LAG', 'ERRORS', 'STATE', 'LAST ERROR'],
        streams.map((s) => [
          s.id,
          shortTime(s.watermark),
          shortTime(s.lastPollAt),
          shortLag(s.lagSeconds),
          String(s.consecutiveFailures),
          streamStateText(s),
          clip(lastErrorText(s), LAST_ERROR_CHARS),
        ]),
      ),
    );
  });

  withCommonOptions(
    group
      .command('reset')
      .description('forget a stream (state, snapshots): its next poll is a first sync; unparks it')
      .argument('<stream>', 'stream id, <connectionId>:<entityType>, e.g. local:customer'),
  ).action(async (stream: string, raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    const path = `/streams/${segment(stream, 'stream')}/reset`;
    checkInput(z.object({ stream: StreamIdSchema }), { stream }, 'stream');
    const view = await clientFor(options).call('POST', path, StreamViewSchema, {
      timeoutMs: ADMIN_DELETE_TIMEOUT_MS,
    });
    if (options.json) return writeJson(io, view);
    io.out(`Reset ${view.id}: its next poll starts a first sync`);
  });
}

/**
 * The LAST ERROR column of `streams list`: why the stream is parked, else its last poll's error,
 * else the latest record it set aside (kept until a reset: that record's change was not
 * published), else nothing. Pure.
 * @example lastErrorText({ parkedReason: null, lastError: null, lastSetAside: null }) === ''
 */
export function lastErrorText(
  stream: Pick<z.infer<typeof StreamViewSchema>, 'parkedReason' | 'lastError' | 'lastSetAside'>,
): string {
  return stream.parkedReason ?? stream.lastError ?? stream.lastSetAside?.error ?? '';
}

/** The most of a stream's last error `streams list` shows in its row. */
const LAST_ERROR_CHARS = 80;

/**
 * `text` within `max` characters, ending in `…` where it was cut. Pure.
 * @example clip('abcdef', 4) === 'abc…'
 */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
