import type { Command } from 'commander';
import { z } from 'zod';
import { DeliveryLogSchema, ListDeliveriesQuerySchema } from '../../admin/schemas.ts';
import type { CliIo } from '../exit-codes.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';

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

/** Adds `deliveries list [--subscription ID] [--event ID]` (design.md, CLI); `--json` includes the attempt logs. */
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
    const { deliveries } = await clientFor(options).call('GET', '/deliveries', DeliveryLogSchema, {
      query: { subscription: options.subscription, event: options.event, limit: options.limit },
      check: { query: ListDeliveriesQuerySchema },
    });
    if (options.json) return writeJson(io, deliveries);
    if (deliveries.length === 0) return io.out('no deliveries');
    io.out(
      formatTable(
        ['DELIVERY', 'EVENT', 'SUBSCRIPTION', 'STATUS', 'ATTEMPTS', 'LAST RESULT', 'CREATED'],
        deliveries.map(({ delivery, attempts }) => {
          const result = lastResult(delivery, attempts);
          return [
            delivery.id,
            delivery.eventId,
            delivery.subscriptionId,
            delivery.status,
            String(delivery.attempts),
            result,
            shortTime(delivery.createdAt),
          ];
        }),
      ),
    );
  });
}
