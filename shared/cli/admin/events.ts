import type { Command } from 'commander';
import { z } from 'zod';
import {
  DeliveryListSchema,
  EventListSchema,
  ListEventsQuerySchema,
  ReplayBodySchema,
  StoredEventBodySchema,
} from '../../admin/schemas.ts';
import type { CliIo } from '../exit-codes.ts';
import { checkIdShape, shapedSegment } from './id-shapes.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';

const ListOptionsSchema = CommonOptionsSchema.extend({
  type: z.string().optional(),
  limit: z.string().optional(),
  cursor: z.string().optional(),
});
/**
 * The page as `--json` prints it: still the array of events, the last one carrying the API's
 * `nextCursor` when the page is full, so a script reading stdout alone can ask for the next
 * (`jq -r '.[-1].nextCursor // empty'`). Pure.
 */
function withNextCursorOnLast<T extends object>(
  events: readonly T[],
  nextCursor: string | undefined,
): (T | (T & { nextCursor: string }))[] {
  const last = events.at(-1);
  if (nextCursor === undefined || last === undefined) return [...events];
  return [...events.slice(0, -1), { ...last, nextCursor }];
}

const ReplayOptionsSchema = CommonOptionsSchema.extend({ subscription: z.string().optional() });

/**
 * `GET /events/{id}`'s body, checked as StoredEventBodySchema checks it but kept as received:
 * that parse puts the shape's keys first, and `events show` prints the event with its keys in
 * the order of the body the receivers got.
 */
const DeliveredEventSchema = z
  .custom<z.output<typeof StoredEventBodySchema>>()
  .superRefine((value, context) => {
    for (const issue of StoredEventBodySchema.safeParse(value).error?.issues ?? []) {
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    }
  });

/**
 * Adds `events list [--type T] [--limit N] [--cursor C]`, `events show ID` and
 * `events replay ID [--subscription ID]` (design.md, CLI). `--type` and `--limit` are checked
 * with the API's own schema before the call, and ID with the shape of an event id: a bad one
 * exits 2 naming it.
 */
export function registerEventCommands(program: Command, io: CliIo): void {
  const group = program.command('events').description('list, show and replay stored events');

  withCommonOptions(
    group
      .command('list')
      .description('stored events, newest first')
      .option('--type <type>', 'only events of this type, e.g. customer.updated')
      .option('--limit <n>', 'at most this many (1-1000, default 50)')
      .option('--cursor <cursor>', 'the page after the last one (the cursor it printed)'),
    'print the page as one JSON array; its last event carries nextCursor when the page is full',
  ).action(async (raw: unknown) => {
    const options = ListOptionsSchema.parse(raw);
    const { events, nextCursor } = await clientFor(options).call(
      'GET',
      '/events',
      EventListSchema,
      {
        query: { type: options.type, limit: options.limit, cursor: options.cursor },
        check: { query: ListEventsQuerySchema },
        flags: { type: '--type', limit: '--limit', cursor: '--cursor' },
      },
    );
    // Said on stderr, so stdout stays the page (one JSON document with --json).
    const more = () => {
      if (nextCursor) io.err(`older events: add --cursor ${nextCursor}`);
    };
    if (options.json) {
      writeJson(io, withNextCursorOnLast(events, nextCursor));
      return more();
    }
    if (events.length === 0) return io.out('no events');
    io.out(
      formatTable(
        ['ID', 'TYPE', 'STORED'],
        events.map((e) => [e.id, e.type, shortTime(e.storedAt)]),
      ),
    );
    more();
  });

  withCommonOptions(
    group
      .command('show')
      .description('print one stored event as JSON')
      .argument('<id>', 'event id'),
  ).action(async (id: string, raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    const event = await clientFor(options).call(
      'GET',
      `/events/${shapedSegment('event', id, 'id')}`,
      DeliveredEventSchema,
    );
    writeJson(io, event);
  });

  withCommonOptions(
    group
      .command('replay')
      .description('send a stored event again (same id) to one subscription or every matching one')
      .argument('<id>', 'event id')
      .option('--subscription <id>', 'only to this subscription'),
  ).action(async (id: string, raw: unknown) => {
    const options = ReplayOptionsSchema.parse(raw);
    const path = `/events/${shapedSegment('event', id, 'id')}/replay`;
    if (options.subscription !== undefined)
      checkIdShape('subscription', options.subscription, '--subscription');
    const { deliveries } = await clientFor(options).call('POST', path, DeliveryListSchema, {
      body: options.subscription !== undefined ? { subscriptionId: options.subscription } : {},
      check: { body: ReplayBodySchema },
      flags: { subscriptionId: '--subscription' },
    });
    if (options.json) return writeJson(io, deliveries);
    if (deliveries.length === 0) return io.out(`Event ${id} matches no enabled subscription`);
    io.out(
      [
        `Replaying ${id}: ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}`,
        ...deliveries.map((d) => `  ${d.id} -> ${d.subscriptionId}`),
      ].join('\n'),
    );
  });
}
