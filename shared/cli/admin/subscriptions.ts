import type { Command } from 'commander';
import { z } from 'zod';
import {
  CreateSubscriptionBodySchema,
  DeliveryLogSchema,
  PingResultSchema,
  SubscriptionListSchema,
  SubscriptionViewSchema,
  SubscriptionWithSecretSchema,
} from '../../admin/schemas.ts';
import { systemClock } from '../../clock.ts';
import { configurationError } from '../../configuration-error.ts';
import { formatDuration, parseDuration } from '../../duration.ts';
import { CliExit, type CliIo, EXIT_FAILURE } from '../exit-codes.ts';
import type { AdminApiClient } from './api-client.ts';
import { shapedSegment } from './id-shapes.ts';
import {
  CommonOptionsSchema,
  clientFor,
  formatTable,
  shortTime,
  withCommonOptions,
  writeJson,
} from './output.ts';

const PingOptionsSchema = CommonOptionsSchema.extend({ wait: z.string().optional() });

/** How long `subscriptions ping` waits for its delivery's first attempt by default. */
export const PING_WAIT_DEFAULT_MS = 15_000;
/** What `subscriptions ping --wait` takes, said when it is given anything else. */
export const PING_WAIT_TAKES =
  'must be a duration with its unit, such as 15s, or 0 (a bare number would be milliseconds)';
/** How often `subscriptions ping` looks at its delivery while it waits. */
const PING_LOOK_EVERY_MS = 250;

type PingDelivery = z.infer<typeof PingResultSchema>['delivery'];
type PingAttempt = z.infer<typeof DeliveryLogSchema>['deliveries'][number]['attempts'][number];

/** The ping's delivery as it stands, its last attempt if any, and why it could not be followed. */
interface PingSeen {
  delivery: PingDelivery;
  attempt?: PingAttempt;
  lookFailed?: string;
}

const AddOptionsSchema = CommonOptionsSchema.extend({
  url: z.string(),
  events: z.string().optional(),
});

/** Commander's parser of a repeatable list flag: `--events a --events b` is `a,b`, not `b`. */
function joinRepeated(value: string, previous: string | undefined): string {
  return previous === undefined ? value : `${previous},${value}`;
}

/**
 * Adds `subscriptions add --url URL [--events 'customer.*,resource.updated'] [--json]`,
 * `subscriptions list`, `subscriptions remove ID`, `subscriptions rotate-secret ID` and
 * `subscriptions ping ID`
 * (design.md, CLI); an ID not shaped as the bridge makes subscription ids exits 2 naming `id`
 * before anything is sent (one of that shape the bridge does not hold exits 1). `add` prints the id and the whsec_ secret; with `--json`
 * `{"id","url","events","secret"}`.
 */
export function registerSubscriptionCommands(program: Command, io: CliIo): void {
  const group = program
    .command('subscriptions')
    .description('manage webhook subscriptions of a running `change-bridge start`');

  withCommonOptions(
    group
      .command('add')
      .description(
        'subscribe a URL to events; prints the id and the whsec_ signing secret (shown once)',
      )
      .requiredOption('--url <url>', 'receiver URL (https; http and loopback allowed locally)')
      .option(
        '--events <patterns>',
        "comma-separated event types, e.g. 'customer.*,resource.updated' (default: all); may be repeated",
        joinRepeated,
      ),
  ).action(async (raw: unknown) => {
    const options = AddOptionsSchema.parse(raw);
    const created = await clientFor(options).call(
      'POST',
      '/subscriptions',
      SubscriptionWithSecretSchema,
      {
        body: {
          url: options.url,
          ...(options.events !== undefined ? { events: options.events } : {}),
        },
        check: { body: CreateSubscriptionBodySchema },
        flags: { url: '--url', events: '--events' },
      },
    );
    if (options.json) {
      const { id, url, events, secret } = created;
      writeJson(io, { id, url, events, secret });
      return;
    }
    io.out(
      [
        `Created subscription ${created.id}`,
        `  url     ${created.url}`,
        `  events  ${created.events.join(', ')}`,
        `  secret  ${created.secret}`,
        'Keep the secret now: it is not shown again. Receivers verify webhook-signature with it (Standard Webhooks).',
      ].join('\n'),
    );
  });

  withCommonOptions(
    group.command('list').description('list subscriptions (without secrets)'),
  ).action(async (raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    const { subscriptions } = await clientFor(options).call(
      'GET',
      '/subscriptions',
      SubscriptionListSchema,
    );
    if (options.json) return writeJson(io, subscriptions);
    if (subscriptions.length === 0) return io.out('no subscriptions');
    io.out(
      formatTable(
        ['ID', 'URL', 'EVENTS', 'STATE', 'CREATED'],
        subscriptions.map((s) => [
          s.id,
          s.url,
          s.events.join(','),
          s.enabled ? 'enabled' : `disabled${s.disabledReason ? ` (${s.disabledReason})` : ''}`,
          shortTime(s.createdAt),
        ]),
      ),
    );
  });

  withCommonOptions(
    group
      .command('remove')
      .description('remove a subscription')
      .argument('<id>', 'subscription id'),
  ).action(async (id: string, raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    await clientFor(options).callNoContent(
      'DELETE',
      `/subscriptions/${shapedSegment('subscription', id, 'id')}`,
    );
    if (options.json) return writeJson(io, { id, removed: true });
    io.out(`Removed subscription ${id}`);
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    withCommonOptions(
      group
        .command(verb)
        .description(
          enabled
            ? 'deliver to a subscription again (after a 410 or WEBHOOK_DISABLE_AFTER); it starts healthy'
            : 'stop delivering to a subscription; its events are kept for replay',
        )
        .argument('<id>', 'subscription id'),
    ).action(async (id: string, raw: unknown) => {
      const options = CommonOptionsSchema.parse(raw);
      const view = await clientFor(options).call(
        'PATCH',
        `/subscriptions/${shapedSegment('subscription', id, 'id')}`,
        SubscriptionViewSchema,
        { body: { enabled } },
      );
      if (options.json) return writeJson(io, view);
      io.out(`${enabled ? 'Enabled' : 'Disabled'} subscription ${view.id} (${view.url})`);
    });
  }

  withCommonOptions(
    group
      .command('rotate-secret')
      .description('issue a new secret; the old one keeps signing beside it for 24 h')
      .argument('<id>', 'subscription id'),
  ).action(async (id: string, raw: unknown) => {
    const options = CommonOptionsSchema.parse(raw);
    const rotated = await clientFor(options).call(
      'POST',
      `/subscriptions/${shapedSegment('subscription', id, 'id')}/rotate-secret`,
      SubscriptionWithSecretSchema,
    );
    if (options.json) return writeJson(io, { id: rotated.id, secret: rotated.secret });
    io.out(
      [
        `New secret of ${rotated.id}: ${rotated.secret}`,
        'The previous secret keeps signing beside it for 24 h, so receivers can switch without a gap.',
      ].join('\n'),
    );
  });

  withCommonOptions(
    group
      .command('ping')
      .description(
        'send a signed ping event to the subscription; waits for its first attempt and prints how it went (exit 1 unless delivered)',
      )
      .argument('<id>', 'subscription id')
      .option(
        '--wait <duration>',
        `longest wait for the first attempt, e.g. 30s (default ${formatDuration(PING_WAIT_DEFAULT_MS)}; 0 prints it queued and exits 0)`,
      ),
  ).action(async (id: string, raw: unknown) => {
    const options = PingOptionsSchema.parse(raw);
    const waitMs = pingWaitMs(options.wait);
    const client = clientFor(options);
    const { delivery: queued } = await client.call(
      'POST',
      `/subscriptions/${shapedSegment('subscription', id, 'id')}/ping`,
      PingResultSchema,
    );
    const seen = await firstAttemptOf(client, queued, waitMs);
    const { delivery } = seen;
    const unattempted = delivery.attempts === 0 && delivery.status === 'pending';
    const follow = `see \`deliveries list --event ${delivery.eventId}\``;
    const notSeen = seen.lookFailed
      ? `could not follow it: ${seen.lookFailed}`
      : `no attempt within ${formatDuration(waitMs)}`;
    if (options.json) writeJson(io, delivery);
    else {
      const waited = unattempted && waitMs > 0 ? ` (${notSeen}; ${follow})` : '';
      io.out(`Ping of ${id}: delivery ${delivery.id} ${pingOutcome(seen)}${waited}`);
    }
    // Exit 1 unless the endpoint took it (design.md, CLI: 1 for a remote failure); with --wait 0
    // the ping was only asked to be queued, which it is.
    if (delivery.status === 'delivered' || waitMs === 0) return;
    throw new CliExit(
      EXIT_FAILURE,
      unattempted
        ? `ping of ${id}: ${notSeen}`
        : `ping of ${id} not delivered (retried on its schedule while pending; ${follow})`,
    );
  });
}

/**
 * `--wait` in ms: a duration with its unit (`15s`; a bare `15` would be 15 ms), or `0`.
 * It configures the command (how long it watches the delivery; nothing sent to the admin API
 * depends on it), so a bad one is a configuration error, as `backfill --poll-interval` is:
 * `configuration is invalid: --wait: …`, exit 2.
 * @throws ValidationError (configurationError) naming `--wait`.
 * @example pingWaitMs('30s') === 30_000
 */
export function pingWaitMs(text: string | undefined): number {
  if (text === undefined) return PING_WAIT_DEFAULT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || (ms > 0 && /^\s*[\d.]+\s*$/.test(text)))
    throw configurationError('--wait', PING_WAIT_TAKES);
  return ms;
}

/**
 * The ping's delivery once its first attempt is made (delivered, failed and pending a retry,
 * or given up), or as it stands after `waitMs`: the dispatcher sends it moments after the
 * API queued it.
 */
async function firstAttemptOf(
  client: AdminApiClient,
  queued: PingDelivery,
  waitMs: number,
): Promise<PingSeen> {
  const deadline = Date.now() + waitMs;
  let latest: PingSeen = { delivery: queued };
  const waiting = () => latest.delivery.status === 'pending' && latest.delivery.attempts === 0;
  while (waiting() && Date.now() < deadline) {
    await systemClock.sleep(Math.min(PING_LOOK_EVERY_MS, Math.max(0, deadline - Date.now())));
    const log = await client
      .call('GET', '/deliveries', DeliveryLogSchema, {
        query: { event: queued.eventId, subscription: queued.subscriptionId },
      })
      // The ping is queued whatever the look finds: shown as it stands.
      .catch((error: unknown) => {
        latest = { ...latest, lookFailed: error instanceof Error ? error.message : String(error) };
        return undefined;
      });
    if (!log) break;
    const found = log.deliveries.find(({ delivery }) => delivery.id === queued.id);
    if (found) latest = { delivery: found.delivery, attempt: found.attempts.at(-1) };
  }
  return latest;
}

/**
 * How a ping's delivery went: its status, with the HTTP status or the error of its attempt (the
 * attempt log's, which says what failed: `network: connect ECONNREFUSED …`).
 */
function pingOutcome({ delivery, attempt }: PingSeen): string {
  if (delivery.status === 'delivered') return `delivered (HTTP ${delivery.lastStatus ?? 200})`;
  const error = attempt?.error ?? delivery.lastError;
  if (error) return `${delivery.status}: ${error}`;
  if (delivery.lastStatus) return `${delivery.status} (HTTP ${delivery.lastStatus})`;
  // Pending without an attempt: queued for the dispatcher, not yet tried.
  return delivery.status === 'pending' && delivery.attempts === 0 ? 'queued' : delivery.status;
}
