import {
  type EventBridgeClient,
  ListRulesCommand,
  type PutEventsRequestEntry,
  type Rule,
} from '@aws-sdk/client-eventbridge';
import { type Clock, systemClock } from '../clock.ts';
import type { PublishableEvent } from './publishable-event.ts';
import { type EventPattern, matchesEventPattern, parseEventPattern } from './routing-rule.ts';

/** How long a listing of the bus's rules is used before it is listed again (60 s). */
export const RULES_REFRESH_MS = 60_000;

/** ListRules returns at most 100 rules per page. */
const LIST_RULES_PAGE = 100;

/** Tells, for one PutEvents entry and the event it carries, whether any rule would match it. */
export type EntryMatcher = (entry: PutEventsRequestEntry, event: PublishableEvent) => boolean;

/** The rules of a bus as far as matching goes; `undefined` pattern: matches every event. */
export interface BusRules {
  /** Enabled rules with an event pattern; a pattern this matcher cannot read is `undefined`. */
  patterns: ReadonlyArray<EventPattern | undefined>;
  /** The account and region of the bus (from a rule's ARN), for patterns that test them. */
  account: string;
  region: string;
}

/** Where the rules come from: the real bus, or a fixed list in tests. */
export interface BusRuleSource {
  /** Lists the bus's rules; throws when they cannot be listed. */
  list(): Promise<BusRules>;
}

/**
 * The rules of one EventBridge bus, read with `ListRules` (paged, 100 per request).
 * Disabled rules and rules without an event pattern (schedules) are left out; a pattern
 * using a filter the local matcher does not know counts as matching everything.
 * @example new EventBridgeRuleSource(client, 'change-bridge-prod')
 */
export class EventBridgeRuleSource implements BusRuleSource {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly eventBusName: string,
  ) {}

  async list(): Promise<BusRules> {
    const rules: Rule[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListRulesCommand({
          EventBusName: this.eventBusName,
          Limit: LIST_RULES_PAGE,
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      );
      rules.push(...(page.Rules ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
    const active = rules.filter((rule) => rule.State !== 'DISABLED' && rule.EventPattern);
    // arn:aws:events:<region>:<account>:rule/<bus>/<name>
    const [, , , region = '', account = ''] = (rules[0]?.Arn ?? '').split(':');
    return {
      patterns: active.map((rule) => parseEventPattern(rule.EventPattern ?? '')),
      account,
      region,
    };
  }
}

/** Options of {@link BusRuleFilter}. */
export interface BusRuleFilterOptions {
  source: BusRuleSource;
  /** How long one listing is used (default {@link RULES_REFRESH_MS}). */
  refreshMs?: number;
  clock?: Clock;
  /** Told when listing fails; the filter then lets every event through until the next refresh. */
  onError?: (error: unknown) => void;
}

/**
 * Decides which events are worth a PutEvents: those at least one rule on the bus matches,
 * by the bus's rules listed at most once per `refreshMs` (a rule created since is seen
 * after the next refresh). Fails open: when the rules cannot be listed, or a pattern
 * cannot be read, every event goes to the bus, so no user rule ever misses one.
 * @example const matches = await filter.matcher(); entries.filter((e, i) => matches(e, events[i]))
 */
export class BusRuleFilter {
  private readonly options: BusRuleFilterOptions;
  private cached: { at: number; matcher: EntryMatcher } | undefined;
  private loading: Promise<EntryMatcher> | undefined;

  constructor(options: BusRuleFilterOptions) {
    this.options = options;
  }

  /** The matcher of the current listing, refreshed when older than `refreshMs`. */
  async matcher(): Promise<EntryMatcher> {
    const clock = this.options.clock ?? systemClock;
    const refreshMs = this.options.refreshMs ?? RULES_REFRESH_MS;
    if (this.cached && clock.now() - this.cached.at < refreshMs) return this.cached.matcher;
    // Concurrent publishes share one listing.
    this.loading ??= this.load(clock).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(clock: Clock): Promise<EntryMatcher> {
    let matcher: EntryMatcher;
    try {
      matcher = compileMatcher(await this.options.source.list());
    } catch (error) {
      this.options.onError?.(error);
      matcher = MATCH_ALL;
    }
    this.cached = { at: clock.now(), matcher };
    return matcher;
  }
}

const MATCH_ALL: EntryMatcher = () => true;
const MATCH_NONE: EntryMatcher = () => false;

/** One matcher over every rule of a listing. */
export function compileMatcher(rules: BusRules): EntryMatcher {
  if (rules.patterns.length === 0) return MATCH_NONE;
  if (rules.patterns.some((pattern) => pattern === undefined)) return MATCH_ALL;
  const patterns = rules.patterns as readonly EventPattern[];
  return (entry, event) => {
    // The envelope EventBridge matches rules against (its `id` is assigned on receipt).
    const envelope = {
      version: '0',
      id: '',
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: rules.account,
      time: (entry.Time ?? new Date(event.time)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: rules.region,
      resources: entry.Resources ?? [],
      detail: event,
    };
    return patterns.some((pattern) => matchesEventPattern(pattern, envelope));
  };
}
