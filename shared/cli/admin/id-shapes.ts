import { BACKFILL_ID_PATTERN } from '../../admin/backfill-jobs.ts';
import { EVENT_ID_PATTERN } from '../../changes/event-id.ts';
import { SUBSCRIPTION_ID_PATTERN } from '../../webhooks/subscription.ts';
import { CliExit, EXIT_USAGE } from '../exit-codes.ts';
import { refusalText } from './input-refusal.ts';
import { segment } from './output.ts';

/**
 * The ids whose shape the bridge has always given them (hashedId in event-id.ts), with what
 * the CLI says of one of another shape: what the id takes, and where the user finds one.
 */
const ID_SHAPES = {
  event: {
    pattern: EVENT_ID_PATTERN,
    takes: 'must be an event id: evt_ and 26 characters, as events list prints it',
  },
  subscription: {
    pattern: SUBSCRIPTION_ID_PATTERN,
    takes:
      'must be a subscription id: sub_ and 26 characters, as subscriptions add and list print it',
  },
  backfill: {
    pattern: BACKFILL_ID_PATTERN,
    takes: 'must be a backfill id: bf_ and 26 characters, as backfill and backfill list print it',
  },
} as const;

/** A kind of id whose shape the CLI checks before it asks the bridge about one. */
export type ShapedIdKind = keyof typeof ID_SHAPES;

/**
 * Exits 2 naming `field` (the argument or flag as the user typed it) when `id` is empty or
 * cannot be an id of `kind`, bridge or no bridge: a malformed id is bad usage (design.md, CLI),
 * not an id the bridge does not hold, which the admin API answers 404 (exit 1). Pure but for
 * the exit.
 * @example checkIdShape('event', 'bad id', '--event') // exits 2: "--event: must be an event id: …"
 */
export function checkIdShape(kind: ShapedIdKind, id: string, field: string): void {
  if (id.trim() === '') throw new CliExit(EXIT_USAGE, refusalText(field, 'must not be empty'));
  const shape = ID_SHAPES[kind];
  if (!shape.pattern.test(id)) throw new CliExit(EXIT_USAGE, refusalText(field, shape.takes));
}

/**
 * The path segment of `id` (see segment: an empty id, `.` or `..` are refused as there),
 * once {@link checkIdShape} takes it as an id of `kind`; exits 2 naming `field` otherwise.
 * @example `/backfill/${shapedSegment('backfill', options.follow, '--follow')}`
 */
export function shapedSegment(kind: ShapedIdKind, id: string, field: string): string {
  const path = segment(id, field);
  checkIdShape(kind, id, field);
  return path;
}
