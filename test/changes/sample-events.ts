import { type EventType, EventTypeSchema } from '../../shared/changes/catalogue.ts';
import {
  ENTITY_TYPES,
  type EntityType,
  entityIdOf,
  scopeOf,
} from '../../shared/changes/entity-types.ts';
import { buildChangeEvent, buildSnapshotEvent, thinEvent } from '../../shared/changes/event.ts';
import { hashEventId } from '../../shared/changes/event-id.ts';
import { changedSample, SAMPLE_RECORDS } from './sample-records.ts';
import { sampleWriteEvents } from './sample-write-events.ts';

const DETECTED_AT = Date.UTC(2026, 0, 2, 9, 30);

/** The created, updated, deleted and snapshot events of one entity type, built from samples. */
export function sampleEntityEvents(entityType: EntityType) {
  const previous = SAMPLE_RECORDS[entityType];
  const current = changedSample(entityType);
  const common = {
    connectionId: 'main',
    entityType,
    entityId: entityIdOf(entityType, current),
    scope: scopeOf(entityType, current, { enterpriseId: 'stream-enterprise' }),
    detectedAt: DETECTED_AT,
  };
  return {
    created: buildChangeEvent({ ...common, change: 'created', current: previous }),
    updated: buildChangeEvent({ ...common, change: 'updated', previous, current }),
    deleted: buildChangeEvent({ ...common, change: 'deleted', previous: current }),
    snapshot: buildSnapshotEvent({ ...common, current }),
  };
}

function operationalEvent(type: string, subject: string, data: Record<string, unknown>) {
  return {
    specversion: '1.0',
    id: hashEventId([type, subject, '2026-01-02T09:30:00.000Z']),
    type,
    source: 'change-bridge',
    subject,
    time: '2026-01-02T09:30:00.000Z',
    datacontenttype: 'application/json',
    data,
  };
}

const subscription = { subscriptionId: 'sub_1', url: 'https://hooks.example.com/bridge' };
const failingRun = { consecutiveFailures: 12, failingSince: '2026-01-01T09:30:00.000Z' };

/** One valid sample event per event type of the catalogue, full and (for changes) thin. */
export function sampleEvents(): { type: EventType; event: unknown }[] {
  const samples: { type: EventType; event: unknown }[] = [];
  for (const entityType of ENTITY_TYPES) {
    for (const event of Object.values(sampleEntityEvents(entityType))) {
      const type = EventTypeSchema.parse(event.type);
      samples.push({ type, event });
      samples.push({ type, event: thinEvent(event) });
    }
  }
  samples.push(
    {
      type: 'subscription.disabled',
      event: operationalEvent('subscription.disabled', 'sub_1', {
        ...subscription,
        reason: 'endpoint answered 410 Gone',
      }),
    },
    {
      type: 'delivery.failing',
      event: operationalEvent('delivery.failing', 'sub_1', {
        ...subscription,
        ...failingRun,
        reason: 'HTTP 503',
      }),
    },
    {
      type: 'delivery.recovered',
      event: operationalEvent('delivery.recovered', 'sub_1', { ...subscription, ...failingRun }),
    },
    {
      type: 'delivery.recovered',
      event: operationalEvent('delivery.recovered', 'sub_1', subscription),
    },
    {
      type: 'ping',
      event: operationalEvent('ping', 'sub_1', { ...subscription, message: 'hello' }),
    },
  );
  samples.push(...sampleWriteEvents());
  const covered = new Set(samples.map((sample) => sample.type));
  const missing = EventTypeSchema.options.filter((type) => !covered.has(type));
  if (missing.length > 0) throw new Error(`no sample event for ${missing.join(', ')}`);
  return samples;
}
