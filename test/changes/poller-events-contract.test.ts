import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_VOLATILE_FIELDS } from '../../shared/changes/canonical.ts';
import {
  CHANGE_EVENT_TYPES,
  EVENT_SCHEMAS,
  type EventType,
} from '../../shared/changes/catalogue.ts';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import { EVENT_ID_PATTERN } from '../../shared/changes/event-id.ts';
import * as events from '../../shared/changes/index.ts';
import { type PollHarness, startPollHarness } from '../polling/poll-harness.ts';
import { applyJsonPatch } from './apply-json-patch.ts';

const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url).pathname;
const SWEEP_WAIT_MS = 61 * 60_000;

let h: PollHarness;
/**
 * Each event the poller published, through JSON as a receiver gets it, with the (manual) clock's
 * time of the poll that found it.
 */
const published: { event: EntityEvent; at: number }[] = [];

async function pollAndCollect(): Promise<void> {
  const from = h.publisher.events.length;
  const at = h.clock.now();
  await h.pollAll();
  for (const event of h.publisher.events.slice(from)) {
    published.push({ event: JSON.parse(JSON.stringify(event)) as EntityEvent, at });
  }
}

// design.md, Public contracts (Event), checked on what the poller publishes from the simulator's
// records (creates, updates, touches, soft and hard deletes across the entity types), as a
// consumer receives it: through JSON, against the committed schemas/ the package exports.
beforeAll(async () => {
  h = await startPollHarness('small', 5);
  await h.pollAll();
  for (let round = 0; round < 2; round++) {
    await h.sim.controls.runActivity({ steps: 250 });
    await h.clock.advance(1000);
    await pollAndCollect();
  }
  // Past every reconciliation sweep's interval, so deletes that leave no trace are found too.
  await h.clock.advance(SWEEP_WAIT_MS);
  await pollAndCollect();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

function guardOf(type: string): (value: unknown) => boolean {
  const name = `is${type
    .split('.')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;
  return (events as unknown as Record<string, (value: unknown) => boolean>)[name]!;
}

describe('events the poller publishes against the simulator', () => {
  it('cover every change kind, across most entity types', () => {
    const kinds = new Set(published.map(({ event }) => event.data.change));
    expect([...kinds].sort()).toEqual(['created', 'deleted', 'updated']);
    expect(new Set(published.map(({ event }) => event.data.entityType)).size).toBeGreaterThan(8);
  });

  it('have the CloudEvents envelope of the design', () => {
    for (const { event, at } of published) {
      expect(event.specversion).toBe('1.0');
      expect(event.id).toMatch(EVENT_ID_PATTERN);
      expect(CHANGE_EVENT_TYPES).toContain(event.type);
      expect(event.type).toBe(`${event.data.entityType}.${event.data.change}`);
      expect(ENTITY_TYPES).toContain(event.data.entityType);
      expect(event.source).toMatch(/^connector\/(sim|hotel)$/);
      expect(event.subject).toBe(event.data.entityId);
      expect(event.time).toBe(new Date(at).toISOString());
      expect(event.datacontenttype).toBe('application/json');
    }
  });

  it('carry current, previous, changedFields and patch as documented', () => {
    for (const { event } of published) {
      const { change, current, previous, changedFields, patch } = event.data;
      if (change === 'deleted') {
        expect(current).toBeNull();
        expect(previous).not.toBeNull();
        expect([changedFields, patch]).toEqual([[], []]);
      } else if (change === 'created') {
        expect(previous).toBeNull();
        expect(patch).toEqual([]);
      } else {
        expect(applyJsonPatch(previous, patch ?? []), event.id).toStrictEqual(current);
        const differing = Object.keys({ ...previous, ...current })
          .filter((key) => !DEFAULT_VOLATILE_FIELDS.includes(key))
          .filter((key) => !isDeepStrictEqual(previous?.[key], current?.[key]))
          .sort();
        expect(changedFields).toEqual(differing);
        expect(changedFields.length).toBeGreaterThan(0);
      }
    }
  });

  it('validate against the committed JSON Schemas, the zod schemas and their guards', () => {
    // Formats are left to zod (ajv-formats is no dependency); ajv checks every other keyword.
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    const validators = new Map<string, ReturnType<typeof ajv.compile>>();
    for (const { event } of published) {
      const type = event.type as EventType;
      let validate = validators.get(type);
      if (!validate) {
        const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${type}.json`), 'utf8'));
        validate = ajv.compile(schema);
        validators.set(type, validate);
      }
      expect(validate(event) ? '' : ajv.errorsText(validate.errors), type).toBe('');
      expect(EVENT_SCHEMAS[type].safeParse(event).error, type).toBeUndefined();
      expect(guardOf(type)(event), type).toBe(true);
    }
  });
});
