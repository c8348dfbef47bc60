import type { EntityEvent } from '../changes/entity-event-schema.ts';
import type { EntityRecord, EntityType, Scope } from '../changes/entity-types.ts';
import { buildChangeEvent } from '../changes/event.ts';
import { LoyaltyProgramSchema, RoutingRuleSchema } from '../connector/records/index.ts';
import {
  type ChangeContext,
  computeChanges,
  observe,
  type PageChanges,
} from '../polling/page-changes.ts';
import type { PublishableEvent } from '../publish/publishable-event.ts';
import type { StoredSnapshot } from '../state/state-store.ts';
import {
  buildWrittenEvent,
  fieldOf,
  recordsOf,
  setFields,
  type WriteContext,
  type WrittenEvent,
  writtenEntityData,
} from './written-events.ts';

/** The six write operations of connector-api.md whose success publishes events. */
export const WRITE_OPERATIONS = [
  'customers/update',
  'loyaltyPrograms/update',
  'paymentRequests/add',
  'routingRules/update',
  'vouchers/add',
  'restrictions/clear',
] as const;

/** One of the six write operations. */
export type WriteOperation = (typeof WRITE_OPERATIONS)[number];

/** True for the six write operations. */
export function isWriteOperation(name: string): name is WriteOperation {
  return (WRITE_OPERATIONS as readonly string[]).includes(name);
}

/** Written entities the pollers also watch: their events are diffed against stored snapshots. */
export const POLLED_WRITES = {
  'customers/update': 'customer',
  'paymentRequests/add': 'paymentRequest',
} as const satisfies Partial<Record<WriteOperation, EntityType>>;

/** The records a successful polled write returned. */
export function polledRecords(
  operation: keyof typeof POLLED_WRITES,
  response: unknown,
): EntityRecord[] {
  if (operation === 'customers/update') return recordsOf([response]);
  return recordsOf(fieldOf(response, 'PaymentRequests'));
}

/** How a polled write is judged: the stream's context, plus the request for a missing snapshot. */
export interface PolledWriteInput {
  context: WriteContext;
  entityType: EntityType;
  volatileFields: readonly string[];
  records: readonly EntityRecord[];
  stored: ReadonlyMap<string, StoredSnapshot>;
  /** The request body, whose fields name what an update changed when no snapshot exists. */
  request: EntityRecord;
  /**
   * How a live poll of the stream would judge the change now (liveJudging): while a backfill
   * that emits runs, an entity it has not published yet gets its `created` before the change.
   */
  backfill?: ChangeContext['backfill'];
}

/**
 * The events and snapshot writes of a polled write, decided exactly as a live poll would
 * ({@link computeChanges}, with created events on and the stream's backfill judging), so the
 * next poll of the same content finds the snapshot current and emits nothing, and a backfill
 * that emits still publishes the entity as it stood before the write. An update of a record
 * that has no snapshot yet is still published as `<entity>.updated` (without `previous`;
 * `changedFields` are the fields the request set). Pure.
 */
export function polledWriteChanges(input: PolledWriteInput): PageChanges {
  const { context, entityType, volatileFields } = input;
  const changes = computeChanges(observe(entityType, input.records), input.stored, {
    connectionId: context.connectionId,
    entityType,
    scope: context.scope,
    volatileFields,
    emitCreated: true,
    backfill: input.backfill,
    now: context.now,
  });
  if (entityType !== 'customer') return changes;
  // customers/update never creates: a customer without a live snapshot was updated all the
  // same (a backfill's `created` of a stored customer, sent ahead of the change, stays).
  const live = (id: string) => {
    const stored = input.stored.get(id);
    return stored !== undefined && stored.deleted !== true;
  };
  const events = changes.events.map((event) =>
    event.data.change === 'created' && !live(event.data.entityId)
      ? updateWithoutSnapshot(event, input)
      : event,
  );
  return { ...changes, events };
}

/** A value customers/update leaves the stored one for (rule 1: left out or blank). */
function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/** The `<entity>.updated` of a record that had no snapshot: no `previous`, the request's fields. */
function updateWithoutSnapshot(event: EntityEvent, input: PolledWriteInput): EntityEvent {
  const { context, volatileFields } = input;
  const current = event.data.current ?? {};
  const built = buildChangeEvent({
    connectionId: context.connectionId,
    entityType: input.entityType,
    entityId: event.data.entityId,
    scope: event.data.scope,
    detectedAt: context.now,
    volatileFields,
    change: 'updated',
    current,
    previous: current,
  });
  const { previous: _previous, ...data } = built.data;
  // customers/update rule 1: a blank field keeps the stored value; rule 2: Notes replaces it.
  const changedFields = setFields(input.request, 'CustomerId').filter(
    (field) => field !== 'ChainId' && (field === 'Notes' || !isBlank(input.request[field])),
  );
  return { ...built, data: { ...data, changedFields } };
}

/** A write-only operation: its entities have no read operation, so no poll sees them. */
export type WriteOnlyOperation = Exclude<WriteOperation, keyof typeof POLLED_WRITES>;

/**
 * The entity type whose subjects' last events the proxy keeps for each write-only operation
 * (see buildWrittenEvent), under {@link writeOnlyStreamId}; none for vouchers/add, whose every
 * voucher is new.
 */
export const VERSIONED_WRITES = {
  'loyaltyPrograms/update': 'loyaltyProgram',
  'routingRules/update': 'routingRule',
  'restrictions/clear': 'restriction',
} as const satisfies Partial<Record<WriteOnlyOperation, string>>;

/** The subjects of a write-only operation's events, from its request: what versions to read. */
export function writeOnlySubjects(
  operation: keyof typeof VERSIONED_WRITES,
  request: EntityRecord,
): string[] {
  if (operation === 'restrictions/clear') return [String(request.ServiceId)];
  const [updates, idField] =
    operation === 'loyaltyPrograms/update'
      ? [request.LoyaltyProgramUpdates, 'LoyaltyProgramId']
      : [request.RoutingRuleUpdates, 'RoutingRuleId'];
  return [...new Set(recordsOf(updates).map((item) => String(item[idField])))];
}

/**
 * The scope a write-only operation's records fall back on when they name no enterprise or
 * chain (a voucher names only its service): with a Portfolio Access Token, the `EnterpriseId`
 * vouchers/add was sent with, which the connector requires and checks against the token's
 * scope (connector-api.md, Authentication 3); with any other token the connector ignores that
 * field, so the connection's scope stays. Pure.
 * @example writeOnlyScope('vouchers/add', { EnterpriseId: 'e-2' }, {}, true) // { enterpriseId: 'e-2' }
 */
export function writeOnlyScope(
  operation: WriteOnlyOperation,
  request: EntityRecord,
  connectionScope: Scope,
  portfolioToken: boolean,
): Scope {
  const enterpriseId = request.EnterpriseId;
  if (!portfolioToken || operation !== 'vouchers/add') return connectionScope;
  if (typeof enterpriseId !== 'string' || enterpriseId === '') return connectionScope;
  return { ...connectionScope, enterpriseId };
}

/**
 * The write-only events of a successful write of loyalty programs, routing rules, vouchers
 * or restrictions, from the connector's response (and, for restrictions, the request), with
 * the versions to keep of them (see buildWrittenEvent). Pure.
 */
export function writeOnlyChanges(
  context: WriteContext,
  operation: WriteOnlyOperation,
  request: EntityRecord,
  response: unknown,
): WrittenEvent[] {
  switch (operation) {
    case 'loyaltyPrograms/update':
      return updatedEvents(
        context,
        'loyaltyProgram',
        fieldOf(response, 'LoyaltyPrograms'),
        request.LoyaltyProgramUpdates,
        'LoyaltyProgramId',
      );
    case 'routingRules/update':
      return updatedEvents(
        context,
        'routingRule',
        fieldOf(response, 'RoutingRules'),
        request.RoutingRuleUpdates,
        'RoutingRuleId',
      );
    case 'vouchers/add':
      return recordsOf(fieldOf(response, 'Vouchers')).map((record) =>
        buildWrittenEvent(
          context,
          'voucher.created',
          String(record.Id),
          record,
          writtenEntityData(context, 'voucher', 'created', record, setFields(record, 'UpdatedUtc')),
        ),
      );
    case 'restrictions/clear': {
      const serviceId = String(request.ServiceId);
      const conditions = recordsOf(request.Data);
      return [
        buildWrittenEvent(
          context,
          'restriction.cleared',
          serviceId,
          { ServiceId: serviceId, Data: conditions },
          {
            entityType: 'restriction',
            entityId: serviceId,
            scope: context.scope,
            change: 'cleared',
            serviceId,
            conditions,
          },
        ),
      ];
    }
  }
}

/** The events of {@link writeOnlyChanges} alone. Pure. */
export function writeOnlyEvents(
  context: WriteContext,
  operation: WriteOnlyOperation,
  request: EntityRecord,
  response: unknown,
): PublishableEvent[] {
  return writeOnlyChanges(context, operation, request, response).map((written) => written.event);
}

function updatedEvents(
  context: WriteContext,
  entityType: 'loyaltyProgram' | 'routingRule',
  returned: unknown,
  updates: unknown,
  idField: string,
): WrittenEvent[] {
  // What the updates of each record set: every update that names it (a record may be named
  // twice), without the values sent as null, which change nothing.
  const setById = new Map<string, Set<string>>();
  for (const item of recordsOf(updates)) {
    const id = String(item[idField]);
    const fields = setById.get(id) ?? new Set<string>();
    for (const field of setFields(item, idField)) if (item[field] !== null) fields.add(field);
    setById.set(id, fields);
  }
  // The connector answers a record named twice in each element that names it: one event each.
  const byId = new Map(recordsOf(returned).map((record) => [String(record.Id), record]));
  const contractFields = Object.keys(RECORD_SCHEMAS[entityType].shape);
  // Only fields of the record (the contract's, or the answer's own): a request field no record
  // carries (routingRules/update's AssignmentTargetType) names no change of it.
  const ofRecord = (record: EntityRecord) => (field: string) =>
    contractFields.includes(field) || field in record;
  return [...byId].map(([id, record]) =>
    buildWrittenEvent(
      context,
      `${entityType}.updated`,
      id,
      record,
      writtenEntityData(
        context,
        entityType,
        'updated',
        record,
        [...(setById.get(id) ?? [])].filter(ofRecord(record)).sort(),
      ),
    ),
  );
}

/** The contract's record of each entity only a write returns: the fields changedFields may name. */
const RECORD_SCHEMAS = {
  loyaltyProgram: LoyaltyProgramSchema,
  routingRule: RoutingRuleSchema,
} as const;
