import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import type { Clock, RandomSource } from '../clock.ts';
import { BridgeError, parseOrThrow } from '../errors.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import { WebhookTable } from './dynamodb-table-access.ts';
import {
  type EndpointSlots,
  SLOT_HOLD_MS,
  type SlotHold,
  SlotHoldersSchema,
  shareSlots,
} from './endpoint-slots.ts';

/**
 * Sort key of an endpoint's slots item (`ENDPOINT#<endpoint>`, where the dispatcher's endpoint
 * is its URL's key, `url:<hash>`: see endpointOfUrl; a subscription's state is `ENDPOINT#<subId>`,
 * `STATE`).
 */
export const SLOTS_SK = 'SLOTS';

/** Reads and conditional writes one share of an endpoint's slots may take before giving up. */
const HOLD_TRIES = 10;

/** An abandoned slots item goes after a day (the table's TTL); every write pushes this on. */
const SLOTS_ITEM_TTL_SECONDS = 86_400;

const SlotsItemSchema = z.object({
  holders: SlotHoldersSchema,
  version: z.number().int(),
});

/** Options of {@link DynamoDbEndpointSlots}. */
export interface DynamoDbEndpointSlotsOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  random: RandomSource;
  /** This process's holder id; 8 random characters unless given (tests name theirs). */
  holder?: string;
}

/**
 * {@link EndpointSlots} in the state table: one item per endpoint (pk `ENDPOINT#<endpoint>`, sk
 * `SLOTS`) with every holder's share and a version. A share is taken by reading the item and
 * writing it back on the condition that its version has not moved, so two dispatchers never
 * both take the same free slot; one that loses reads again (strongly consistent), after a
 * short random wait. A share is given back with one update that removes it. An invocation
 * that delivers to an endpoint costs about one read and two writes. The item stays under 1 KB while fewer than ~20 processes hold shares (one
 * write unit; in AWS at most `dispatcherMaxConcurrency` containers do).
 */
export class DynamoDbEndpointSlots implements EndpointSlots {
  private readonly table: WebhookTable;
  readonly holder: string;

  constructor(private readonly options: DynamoDbEndpointSlotsOptions) {
    this.table = WebhookTable.on(options.client, options.tableName);
    // 48 random bits: unique enough among a deployment's containers, and short, since every
    // holder's name is in the item (under 1 KB, one write unit, with ~15 holders).
    this.holder = options.holder ?? randomBytes(6).toString('base64url');
  }

  async hold(endpoint: string, want: number, max: number, inUse = 0): Promise<SlotHold> {
    const { tableName, clock, random } = this.options;
    const pk = `ENDPOINT#${endpoint}`;
    if (want === 0) return this.release(pk);
    for (let attempt = 1; attempt <= HOLD_TRIES; attempt++) {
      // A stale read loses the conditional write below and is read again, consistently.
      const item = await withStoreErrors(tableName, 'GetItem', () =>
        this.table.getItem(pk, SLOTS_SK, attempt > 1),
      );
      const stored = item
        ? parseOrThrow(SlotsItemSchema, item, 'stored endpoint slots')
        : { holders: {}, version: 0 };
      const now = clock.now();
      const shared = shareSlots(stored.holders, this.holder, want, max, now, SLOT_HOLD_MS, inUse);
      if (!shared.changed) return shared.hold;
      const written = await withStoreErrors(tableName, 'PutItem', () =>
        this.table.tryPut(
          {
            pk,
            sk: SLOTS_SK,
            holders: shared.holders,
            version: stored.version + 1,
            ttl: Math.floor(now / 1000) + SLOTS_ITEM_TTL_SECONDS,
          },
          'attribute_not_exists(pk) OR version = :version',
          { ':version': stored.version },
        ),
      );
      if (written) return shared.hold;
      await clock.sleep(10 + random() * 40 * attempt);
    }
    throw new BridgeError(`slots of endpoint ${endpoint} stayed contended`, { retryable: true });
  }

  /**
   * Gives this holder's share back in one write, without reading: the version moves too, so a
   * holder that read the share before cannot write it back.
   */
  private async release(pk: string): Promise<SlotHold> {
    const { tableName, clock } = this.options;
    // Refused when there is no item: nothing was held.
    await withStoreErrors(tableName, 'UpdateItem', () =>
      this.table.tryUpdate(
        { pk, sk: SLOTS_SK },
        {
          expression: 'REMOVE holders.#holder ADD version :one',
          condition: 'attribute_exists(pk)',
          names: { '#holder': this.holder },
          values: { ':one': 1 },
        },
      ),
    );
    return { slots: 0, until: clock.now() };
  }
}
