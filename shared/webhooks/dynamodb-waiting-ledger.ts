import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import { WebhookTable } from './dynamodb-table-access.ts';
import {
  inNotedOrder,
  notedAtOf,
  type WaitingChange,
  type WaitingLedger,
  type WaitingMark,
} from './waiting-ledger.ts';

/** Sort key of an endpoint's count of waiting deliveries, beside its state (`ENDPOINT#<subId>`). */
export const WAITING_COUNT_SK = 'WAITING';

/**
 * A mark outlives its due time by this long at most (the table's TTL): a retry handed over later
 * than this no longer holds its subject's later events back (one 15 minutes overdue is read
 * from the store by the batch that finds it, and its due time moved to now while pending).
 */
const MARK_TTL_AFTER_DUE_SECONDS = 86_400;

/**
 * An endpoint's count goes this long after its last raise (the table's TTL). Every note raises
 * it, and a noted delivery is due at most a retry step (24 h, +20 %) or a pause (27 h 35 min:
 * ENDPOINT_PAUSE_MAX_MS) later, and lost 15 minutes after that, so a count this old counts
 * nothing still waited for: a count left high (a crash between writes, marks lost and never
 * read again) does not cost reads for good.
 */
const COUNT_TTL_AFTER_RAISE_SECONDS = 2 * 86_400;

/** Options of {@link DynamoDbWaitingLedger}. */
export interface DynamoDbWaitingLedgerOptions {
  client: DynamoDBClient;
  tableName: string;
}

/** A change with when it is noted, if it is noted first (see notedAtOf). */
interface NotedChange {
  change: WaitingChange;
  notedAt: number;
}

const markPk = (endpoint: string, subject: string) => `WAITING#${endpoint}#${subject}`;
const countKey = (endpoint: string) => ({ pk: `ENDPOINT#${endpoint}`, sk: WAITING_COUNT_SK });

/**
 * {@link WaitingLedger} in the state table: one item per waiting delivery (pk
 * `WAITING#<subId>#<subject>`, sk the delivery id; its due time, when it was first noted, and
 * `lane: bulk` while a backfill's delivery has not been sent ahead), and per endpoint a count of
 * them (pk `ENDPOINT#<subId>`, sk `WAITING`), so a batch reads the marks of its subjects only
 * at an endpoint where something waits: a healthy endpoint costs one strongly consistent read
 * per batch. The count is raised before marks are written and lowered after they are removed
 * (atomic `ADD`s), so it never reads lower than the marks there are. Only failing deliveries
 * write (two count updates per batch and endpoint, one write per mark).
 */
export class DynamoDbWaitingLedger implements WaitingLedger {
  private readonly table: WebhookTable;

  constructor(private readonly options: DynamoDbWaitingLedgerOptions) {
    this.table = WebhookTable.on(options.client, options.tableName);
  }

  async countAt(endpoint: string): Promise<number> {
    const { pk, sk } = countKey(endpoint);
    const item = await withStoreErrors(this.options.tableName, 'GetItem', () =>
      this.table.getItem(pk, sk),
    );
    return Number(item?.waiting ?? 0);
  }

  async waitingOf(endpoint: string, subject: string): Promise<WaitingMark[]> {
    const items = await withStoreErrors(this.options.tableName, 'Query', () =>
      this.table.query(markPk(endpoint, subject), { consistent: true }),
    );
    return inNotedOrder(
      items.map((item) => ({
        deliveryId: String(item.sk),
        dueAt: Number(item.dueAt),
        notedAt: Number(item.notedAt),
        ...(item.lane === 'bulk' ? { bulk: true as const } : {}),
      })),
    );
  }

  async apply(changes: readonly WaitingChange[], now: number): Promise<void> {
    const byEndpoint = new Map<string, NotedChange[]>();
    for (const [index, change] of changes.entries()) {
      const own = byEndpoint.get(change.endpoint) ?? [];
      own.push({ change, notedAt: notedAtOf(now, index, changes.length) });
      byEndpoint.set(change.endpoint, own);
    }
    await Promise.all([...byEndpoint].map(([endpoint, own]) => this.applyAt(endpoint, own, now)));
  }

  /**
   * Raises the endpoint's count by every note first, writes and removes the marks, then lowers
   * the count by the notes that only moved a mark and the marks removed: a crash in between
   * leaves it high, never low.
   */
  private async applyAt(endpoint: string, changes: NotedChange[], now: number): Promise<void> {
    const notes = changes.filter(({ change }) => change.dueAt !== undefined).length;
    if (notes > 0)
      await this.addToCount(
        endpoint,
        notes,
        Math.floor(now / 1000) + COUNT_TTL_AFTER_RAISE_SECONDS,
      );
    const existed = await Promise.all(
      changes.map(({ change, notedAt }) => this.writeMark(change, notedAt)),
    );
    const lower = existed.filter(Boolean).length;
    if (lower > 0) await this.addToCount(endpoint, -lower);
  }

  /** Writes (or removes) one mark, noted at `notedAt` if new; true when it was there before. */
  private async writeMark(change: WaitingChange, notedAt: number): Promise<boolean> {
    const { tableName } = this.options;
    const Key = { pk: markPk(change.endpoint, change.subject), sk: change.deliveryId };
    const { dueAt } = change;
    if (dueAt === undefined) {
      const removed = await withStoreErrors(tableName, 'DeleteItem', () =>
        this.table.client.send(
          new DeleteCommand({ TableName: tableName, Key, ReturnValues: 'ALL_OLD' }),
        ),
      );
      return removed.Attributes !== undefined;
    }
    const written = await withStoreErrors(tableName, 'UpdateItem', () =>
      this.table.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          // A backfill's delivery is marked so (see takeBulk); noted as live work, no longer.
          UpdateExpression: `SET dueAt = :due, notedAt = if_not_exists(notedAt, :now), #ttl = :ttl${
            change.lane === 'bulk' ? ', lane = :bulk' : ' REMOVE lane'
          }`,
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':due': dueAt,
            ':now': notedAt,
            ':ttl': Math.floor(dueAt / 1000) + MARK_TTL_AFTER_DUE_SECONDS,
            ...(change.lane === 'bulk' ? { ':bulk': 'bulk' } : {}),
          },
          ReturnValues: 'UPDATED_OLD',
        }),
      ),
    );
    return written.Attributes?.notedAt !== undefined;
  }

  /**
   * One conditional write per delivery (`lane = bulk`, removed, and the mark due now): of two
   * containers that ask at once, one takes it. Only a live change behind a backfill's waiting
   * delivery asks, once per such delivery.
   */
  async takeBulk(
    endpoint: string,
    subject: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<string[]> {
    const taken = await Promise.all(
      deliveryIds.map((id) => this.takeBulkMark(markPk(endpoint, subject), id, now)),
    );
    return deliveryIds.filter((_, index) => taken[index]);
  }

  /** Takes one mark's backfill note; false when it has none (taken, noted live, or gone). */
  private async takeBulkMark(pk: string, deliveryId: string, now: number): Promise<boolean> {
    const { tableName } = this.options;
    return withStoreErrors(tableName, 'UpdateItem', () =>
      this.table.tryUpdate(
        { pk, sk: deliveryId },
        {
          condition: 'lane = :bulk',
          expression: 'SET dueAt = :now REMOVE lane',
          values: { ':bulk': 'bulk', ':now': now },
        },
      ),
    );
  }

  /** Adds `by` to the endpoint's count; a raise also moves its expiry (`ttl`, epoch seconds). */
  private async addToCount(endpoint: string, by: number, ttl?: number): Promise<void> {
    const { tableName } = this.options;
    await withStoreErrors(tableName, 'UpdateItem', () =>
      this.table.client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: countKey(endpoint),
          ...(ttl === undefined
            ? {
                UpdateExpression: 'ADD waiting :by',
                ExpressionAttributeValues: { ':by': by },
              }
            : {
                UpdateExpression: 'ADD waiting :by SET #ttl = :ttl',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':by': by, ':ttl': ttl },
              }),
        }),
      ),
    );
  }
}
