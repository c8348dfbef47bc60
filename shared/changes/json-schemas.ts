import { z } from 'zod';
import { EVENT_SCHEMAS, type EventType, EventTypeSchema } from './catalogue.ts';

/** A generated JSON Schema document (draft 2020-12). */
export type JsonSchemaDocument = Record<string, unknown>;

/** The generated catalogue: one JSON Schema per event type, and the listing of them. */
export interface EventJsonSchemas {
  schemas: ReadonlyMap<EventType, JsonSchemaDocument>;
  /** What `schemas/index.json` holds: every event type with its file name. */
  index: { schemas: { type: EventType; file: string }[] };
}

/**
 * The file name of an event type's JSON Schema.
 * @example schemaFileName('customer.updated') // 'customer.updated.json'
 */
export function schemaFileName(type: EventType): string {
  return `${type}.json`;
}

/**
 * Builds the JSON Schema of every event type from its zod schema. Pure.
 *
 * Generated in zod's `input` mode, so objects do not forbid additional properties: a
 * consumer validating with these schemas keeps accepting events after fields are added
 * (records are the API's, and the API adds fields). Throws when a schema holds something
 * JSON Schema cannot express, so the catalogue never silently loosens.
 */
export function buildEventJsonSchemas(): EventJsonSchemas {
  const schemas = new Map<EventType, JsonSchemaDocument>();
  for (const type of EventTypeSchema.options) {
    const schema = z.toJSONSchema(EVENT_SCHEMAS[type], { io: 'input', target: 'draft-2020-12' });
    schemas.set(type, { ...schema, title: type });
  }
  return {
    schemas,
    index: {
      schemas: EventTypeSchema.options.map((type) => ({ type, file: schemaFileName(type) })),
    },
  };
}
