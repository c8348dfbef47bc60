import type { Command } from 'commander';
import { z } from 'zod';
import {
  DeliveryListSchema,
  DeliveryLogSchema,
  ListDeliveriesQuerySchema,
  RedeliverBodySchema,
} from '../../admin/schemas.ts';
import { parseDuration } from '../../duration.ts';
import { CliExit, type CliIo, EXIT_USAGE } from '../exit-codes.ts';
import { requireFilterTarget } from './filter-target.ts';
import { checkIdShape, shapedSegment } from './id-shapes.ts';
import { refusalText } from './input-refusal.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';

const RedeliverOptionsSchema = CommonOptionsSchema.extend({
  subscription: z.string(),
  since: z.string().optional(),
});

/**
 * The instant `--since` names: an ISO 8601 date-time, or a duration with its unit back from
 * `now` (`2h`; one reaching back past 1970 is every dead letter); absent, every dead letter
 * kept. Exits 2 naming `--since` otherwise, a bare number too (`2026` would be 2026 ms back).
 * `--since` is input to the admin API (the `since` of POST /subscriptions/{id}/redeliver,
 * which dead letters are sent again), not configuration of the command: refused as input is
 * (input-refusal.ts), without the `configuration is invalid: ` lead.
 * @example sinceInstant('2h', Date.UTC(2026, 0, 1, 12)) // '2026-01-01T10:00:00.000Z'
 */
export function sinceInstant(text: string | undefined, now: number): string {
  if (text === undefined) return new Date(0).toISOString();
  const ms = /^\s*[\d.]+\s*$/.test(text) ? undefined : parseDuration(text);
  if (ms !== undefined) return new Date(Math.max(0, now - ms)).toISOString();
  if (RedeliverBodySchema.shape.since.safeParse(text).success) return text;
  const why = `"${text}" is neither a duration with its unit, such as 2h, nor an ISO 8601 date-time`;
  throw new CliExit(EXIT_USAGE, refusalText('since', why, { since: '--since' }));
}

const ListOptionsSchema = CommonOptionsSchema.extend({
  subscription: z.string().optional(),
  event: z.string().optional(),
  limit: z.string().optional(),
});

type DeliveryLog = z.infer<typeof DeliveryLogSchema>['deliveries'][number];

/**
 * The LAST RESULT of a delivery: its last attempt's status (or error) and outcome, and for a
 * dead letter why it died, which the last attempt need not say (its subscription was
 * disabled or removed, its event expired). Pure.
 * @example lastResult(dead, attempts) // '503 retry, dead: subscription disabled'
 */
export function lastResult(
  delivery: DeliveryLog['delivery'],
  attempts: DeliveryLog['attempts'],
): string {
  const last = attempts.at(-1);
  const attempt = last ? `${last.status ?? last.error ?? '-'} ${last.outcome}` : undefined;
  if (delivery.status !== 'dead' || delivery.deadReason === undefined) return attempt ?? '-';
  const dead = `dead: ${delivery.deadReason}`;
  return attempt ? `${attempt}, ${dead}` : dead;
}

/**
 * The NEXT ATTEMPT of a delivery: when a pending one is sent next (after a retry's wait, a
 * `Retry-After` pause, or its turn at a slow endpoint), `-` for one delivered or dead. Pure.
 * @example nextAttempt({ status: 'pending', nextAttemptAt: '2026-01-01T00:00:00.000Z' }) // '2026-01-01 00:00:00'
 */
export function nextAttempt(
  delivery: Pick<DeliveryLog['delivery'], 'status' | 'nextAttemptAt'>,
): string {
  return delivery.status === 'pending' ? shortTime(delivery.nextAttemptAt) : '-';
}

/**
 * Adds `deliveries list [--subscription ID] [--event ID]` (design.md, CLI; `--json` includes the
 * attempt logs; an id that names nothing exits 1, as `show` does, and one not shaped as the
 * bridge's ids exits 2 before anything is sent) and
 * `deliveries redeliver --subscription ID [--since]`.
 */
export function registerDeliveryCommands(program: Command, io: CliIo): void {
  const group = program.command('deliveries').description('the webhook delivery log');

  withCommonOptions(
    group
      .command('list')
      .description('deliveries, newest first, with their attempts')
      .option('--subscription <id>', 'only deliveries to this subscription')
      .option('--event <id>', 'only deliveries of this event')
      .option('--limit <n>', 'at most this many (1-1000, default 50)'),
  ).action(async (raw: unknown) => {
    const options = ListOptionsSchema.parse(raw);
    // A filter of another shape than the bridge's ids names nothing it could hold: bad input,
    // refused before anything is sent, not a subscription or event it lacks (exit 1).
    if (options.subscription !== undefined)
      checkIdShape('subscription', options.subscription, '--subscription');
    if (options.event !== undefined) checkIdShape('event', options.event, '--event');
    const client = clientFor(options);
    const { deliveries } = await client.call('GET', '/deliveries', DeliveryLogSchema, {
      query: { subscription: options.subscription, event: options.event, limit: options.limit },
      check: { query: ListDeliveriesQuerySchema },
      flags: { subscription: '--subscription', event: '--event', limit: '--limit' },
    });
    if (deliveries.length === 0 && options.subscription !== undefined)
      await requireFilterTarget(client, 'subscription', options.subscription, '--subscription');
    if (deliveries.length === 0 && options.event !== undefined)
      await requireFilterTarget(client, 'event', options.event, '--event');
    if (options.json) return writeJson(io, deliveries);
    if (deliveries.length === 0) return io.out('no deliveries');
    io.out(
      formatTable(
        [
          'DELIVERY',
          'EVENT',
          'SUBSCRIPTION',
          'STATUS',
          'ATTEMPTS',
          'LAST RESULT',
          'NEXT ATTEMPT',
          'CREATED',
        ],
        deliveries.map(({ delivery, attempts }) => {
          const result = lastResult(delivery, attempts);
          return [
            delivery.id,
            delivery.eventId,
            delivery.subscriptionId,
            delivery.status,
            String(delivery.attempts),
            result,
            nextAttempt(delivery),
            shortTime(delivery.createdAt),
          ];
        }),
      ),
    );
  });

  withCommonOptions(
    group
      .command('redeliver')
      .description("deliver again a subscription's dead letters (same event ids), oldest first")
      .requiredOption('--subscription <id>', 'the subscription whose dead letters go again')
      .option(
        '--since <when>',
        'only those dead-lettered since: a duration back (2h) or an ISO date-time (default: all kept)',
      ),
  ).action(async (raw: unknown) => {
    const options = RedeliverOptionsSchema.parse(raw);
    const since = sinceInstant(options.since, Date.now());
    const { deliveries } = await clientFor(options).call(
      'POST',
      `/subscriptions/${shapedSegment('subscription', options.subscription, '--subscription')}/redeliver`,
      DeliveryListSchema,
      { body: { since }, check: { body: RedeliverBodySchema }, flags: { since: '--since' } },
    );
    if (options.json) return writeJson(io, deliveries);
    io.out(
      deliveries.length === 0
        ? `No dead letters of ${options.subscription} since ${since}`
        : `Delivering again ${deliveries.length} dead letter${deliveries.length === 1 ? '' : 's'} of ${options.subscription}:\n${deliveries.map((d) => `  ${d.id}  ${d.eventId}`).join('\n')}`,
    );
  });
}
