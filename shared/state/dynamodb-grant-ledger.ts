import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import {
  type EntryDecision,
  type GivenBack,
  type GrantLedger,
  type LedgerEntry,
  releaseFromEntry,
  restampInEntry,
  type TakeClaim,
  type TakeResult,
  takeFromEntry,
} from '../connector/budget/grant-ledger.ts';
import { liveGrants } from '../connector/budget/sliding-log.ts';
import { BridgeError } from '../errors.ts';
import { type DocumentClient, documentClientOf } from './document-client.ts';
import { toStoreError } from './dynamodb-errors.ts';

/** Conditional-write races lost in a row before a take gives up (each loser re-reads). */
const TAKE_ATTEMPTS_MAX = 20;
/** The item expires (TTL) this long after its newest grant: an idle token leaves nothing behind (s). */
const GRANTS_TTL_SECONDS = 3600;

const GrantsItemSchema = z.object({
  grants: z.array(z.number()),
  version: z.number().int(),
  /** A server's pause of the token (a 429's Retry-After), epoch ms; every taker waits for it. */
  pausedUntil: z.number().optional(),
  /** Live reserves by taker, which other takers' bulk work leaves free (takeFromEntry). */
  reserves: z
    .record(
      z.string(),
      z.object({ requests: z.number(), untilMs: z.number(), live: z.array(z.number()) }),
    )
    .optional(),
});
type GrantsItem = z.infer<typeof GrantsItemSchema>;

/** Options of {@link DynamoDbGrantLedger}. */
export interface DynamoDbGrantLedgerOptions {
  /**
   * Drops the live reserves a key's item holds when this ledger first reads it: they are of a
   * run that ended (one killed has no chance to take its reserve back). Only where one process
   * at a time takes grants of the table (a local data dir, under its directory lock); never in
   * AWS, where pollers run in parallel and each one's reserve is live. Without it, a killed
   * run's reserve held bulk work back until it lapsed (3 poll intervals and a window).
   */
  dropEarlierReserves?: boolean;
}

/**
 * {@link GrantLedger} in the state table: one item per budget key (`BUDGET#<key>` / `GRANTS`)
 * holding the sliding log of grant times, replaced with a conditional write on its version.
 * Why this design: every poller invocation of one AccessToken, in any Lambda, takes its grant
 * from the same item, so concurrent invocations can never spend the token's budget twice,
 * and a new process reads what the last window already spent. A ledger's first grant of a key
 * costs one consistent read and one conditional write (at most about 7 a second per token,
 * since that is the whole budget); the item stays under 4 KB (200 numbers) plus the live grant
 * times of the takers' reserves (at most as many again, a few with minute polling). It also
 * keeps each taker's live reserve, so bulk takes of one process leave another's live polls
 * their slots (takeFromEntry). A grant whose request was not sent in time is moved to its send
 * (restamp) by the same conditional write, one more for that request alone. The item this
 * ledger wrote last is kept in memory: while it is still the stored one (one process per
 * token, the common case), each further grant is the conditional write alone; a write another
 * taker got in first fails its condition, and the next attempt reads. Other takers add grants
 * (or a pause), or give back one whose request never reached the server: a remembered item that
 * is full may hold a grant given back since, whose slot this ledger finds at its next read (it
 * errs on the safe side). A 429's
 * Retry-After is kept in the same item (`pausedUntil`): a pause written by another taker moves
 * the version, so the next conditional write fails, reads, and finds it. A token bucket
 * would need the same conditional write but cannot say exactly when a slot frees, and SQS FIFO
 * groups would serialize a connection's streams so that a backfill page blocks a live poll.
 */
export class DynamoDbGrantLedger implements GrantLedger {
  private readonly documentClient: DocumentClient;
  /** The item as this ledger last wrote it, per key, while no conditional write said otherwise. */
  private readonly written = new Map<string, GrantsItem>();
  /** Keys this ledger has written: reserves found in them since are this run's. */
  private readonly writtenOnce = new Set<string>();

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    private readonly options: DynamoDbGrantLedgerOptions = {},
  ) {
    this.documentClient = documentClientOf(client);
  }

  async take(
    key: string,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult> {
    return this.takeWith(key, now, (stored, nowMs) =>
      takeFromEntry(stored, nowMs, windowMs, capacity, claim),
    );
  }

  async restamp(
    key: string,
    given: GivenBack,
    now: () => number,
    windowMs: number,
    capacity: number,
    claim?: TakeClaim,
  ): Promise<TakeResult> {
    return this.takeWith(key, now, (stored, nowMs) =>
      restampInEntry(stored, given, nowMs, windowMs, capacity, claim),
    );
  }

  /**
   * Writes what `decide` makes of the key's item (a grant at the time given), re-reading and
   * deciding again after each race another taker won; the result alone when it writes nothing.
   * Each attempt reads `now` after its read of the item: a grant is stamped with the time of the
   * write that records it, not with the first attempt's (up to {@link TAKE_ATTEMPTS_MAX} reads
   * and writes earlier, which under load made grants hundreds of ms old before their send).
   */
  private async takeWith(
    key: string,
    now: () => number,
    decide: (stored: GrantsItem | undefined, nowMs: number) => EntryDecision,
  ): Promise<TakeResult> {
    for (let attempt = 0; attempt < TAKE_ATTEMPTS_MAX; attempt++) {
      const stored = this.written.get(key) ?? (await this.readAsFound(key));
      const nowMs = now();
      const { result, entry } = decide(stored, nowMs);
      if (!entry) return result;
      if (await this.replace(key, stored, entry, nowMs)) return result;
    }
    throw this.lostRaces(key);
  }

  async release(key: string, given: GivenBack): Promise<void> {
    for (let attempt = 0; attempt < TAKE_ATTEMPTS_MAX; attempt++) {
      const stored = this.written.get(key) ?? (await this.readAsFound(key));
      const entry = releaseFromEntry(stored, given);
      if (!entry) return;
      const newest = entry.grants.at(-1) ?? given.grantAt;
      if (await this.replace(key, stored, entry, newest)) return;
    }
    throw this.lostRaces(key);
  }

  async pause(key: string, untilMs: number): Promise<void> {
    for (let attempt = 0; attempt < TAKE_ATTEMPTS_MAX; attempt++) {
      // Read, not remembered: the pause must land on what other takers wrote since.
      const stored = await this.readAsFound(key);
      if ((stored?.pausedUntil ?? 0) >= untilMs) return;
      const item = { ...stored, grants: stored?.grants ?? [], pausedUntil: untilMs };
      if (await this.replace(key, stored, item, untilMs)) return;
    }
    throw this.lostRaces(key);
  }

  /**
   * Writes the key's item in place of `stored` (the next version), on the condition that it is
   * still the stored one; false when another taker wrote first.
   */
  private async replace(
    key: string,
    stored: GrantsItem | undefined,
    item: LedgerEntry,
    newestMs: number,
  ): Promise<boolean> {
    const version = (stored?.version ?? 0) + 1;
    const written: GrantsItem = {
      grants: item.grants,
      version,
      ...(item.pausedUntil === undefined ? {} : { pausedUntil: item.pausedUntil }),
      ...(item.reserves === undefined ? {} : { reserves: item.reserves }),
    };
    try {
      await this.documentClient.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: budgetPk(key),
            sk: GRANTS_SK,
            ...written,
            ttl: Math.ceil(newestMs / 1000) + GRANTS_TTL_SECONDS,
          },
          ConditionExpression: stored ? '#version = :version' : 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: stored ? { '#version': 'version' } : { '#pk': 'pk' },
          ...(stored ? { ExpressionAttributeValues: { ':version': stored.version } } : {}),
        }),
      );
      this.written.set(key, written);
      this.writtenOnce.add(key);
      return true;
    } catch (error) {
      this.written.delete(key);
      if (error instanceof ConditionalCheckFailedException) return false;
      throw toStoreError(this.tableName, 'PutItem', error);
    }
  }

  private lostRaces(key: string): BridgeError {
    return new BridgeError(
      `connector budget ${key}: lost ${TAKE_ATTEMPTS_MAX} write races in a row`,
      { retryable: true },
    );
  }

  async recent(key: string, nowMs: number, windowMs: number): Promise<number[]> {
    return liveGrants((await this.read(key))?.grants ?? [], nowMs, windowMs);
  }

  /**
   * The key's item, without the live reserves of an earlier run when this ledger drops them
   * ({@link DynamoDbGrantLedgerOptions.dropEarlierReserves}) and has not written the key yet.
   * The next write stores it so; its grants stay, the server counted their requests.
   */
  private async readAsFound(key: string): Promise<GrantsItem | undefined> {
    const item = await this.read(key);
    if (!this.options.dropEarlierReserves || this.writtenOnce.has(key) || !item?.reserves)
      return item;
    const { reserves: _earlier, ...rest } = item;
    return rest;
  }

  private async read(key: string): Promise<GrantsItem | undefined> {
    try {
      const { Item } = await this.documentClient.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { pk: budgetPk(key), sk: GRANTS_SK },
          ConsistentRead: true,
        }),
      );
      return Item ? GrantsItemSchema.parse(Item) : undefined;
    } catch (error) {
      throw toStoreError(this.tableName, 'GetItem', error);
    }
  }
}

const GRANTS_SK = 'GRANTS';
const budgetPk = (key: string) => `BUDGET#${key}`;
