import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS, EventTypeSchema } from '../../shared/changes/catalogue.ts';
import { buildEventJsonSchemas } from '../../shared/changes/json-schemas.ts';
import { writeEventSchemas } from '../../shared/changes/write-schemas.ts';
import { checkJsonSchema } from './json-schema-check.ts';
import { sampleEntityEvents, sampleEvents } from './sample-events.ts';

let dir: string;
const files = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'change-bridge-schemas-'));
  await writeEventSchemas(dir);
  for (const name of await readdir(dir)) {
    files.set(name, JSON.parse(await readFile(join(dir, name), 'utf8')));
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function schemaFile(type: string): Record<string, unknown> {
  const schema = files.get(`${type}.json`);
  if (!schema) throw new Error(`no schema file for ${type}`);
  return schema;
}

describe('generated JSON Schemas', () => {
  it('writes one file per event type and an index listing them', () => {
    expect(files.size).toBe(EventTypeSchema.options.length + 1);
    expect(files.get('index.json')).toEqual({
      schemas: EventTypeSchema.options.map((type) => ({ type, file: `${type}.json` })),
    });
  });

  it('are committed in schemas/ as npm run schemas writes them (the package exports that folder)', async () => {
    const committed = new URL('../../schemas/', import.meta.url).pathname;
    expect((await readdir(committed)).sort()).toEqual([...files.keys()].sort());
    for (const [name, schema] of files) {
      expect(JSON.parse(await readFile(join(committed, name), 'utf8')), name).toEqual(schema);
    }
  });

  it('writes exactly what the pure builder builds', () => {
    const { schemas } = buildEventJsonSchemas();
    for (const type of EventTypeSchema.options) expect(schemaFile(type)).toEqual(schemas.get(type));
  });

  it('requires the CloudEvents envelope and pins the type', () => {
    for (const type of EventTypeSchema.options) {
      const schema = schemaFile(type);
      expect(schema.required).toEqual([
        'specversion',
        'id',
        'type',
        'source',
        'subject',
        'time',
        'datacontenttype',
        'data',
      ]);
      expect(schema).toMatchObject({ properties: { type: { const: type } } });
    }
    expect(schemaFile('customer.deleted')).toMatchObject({
      properties: { data: { properties: { current: { type: 'null' } } } },
    });
  });

  it('accepts every sample event, full and thin, and zod agrees', () => {
    for (const { type, event } of sampleEvents()) {
      expect(checkJsonSchema(schemaFile(type), event), type).toEqual([]);
      const parsed = EVENT_SCHEMAS[type].parse(event);
      expect(checkJsonSchema(schemaFile(type), JSON.parse(JSON.stringify(parsed))), type).toEqual(
        [],
      );
    }
  });

  it('rejects events that break their schema', () => {
    const { updated, deleted } = sampleEntityEvents('customer');
    const schema = schemaFile('customer.updated');
    const broken = [
      { ...updated, type: 'customer.created' },
      { ...updated, id: 'evt_0' },
      { ...updated, data: { ...updated.data, change: 'deleted' } },
      {
        ...updated,
        data: { ...updated.data, current: { ...updated.data.current, IsActive: 'yes' } },
      },
      { ...updated, data: { ...updated.data, patch: [{ op: 'move', path: '/a', from: '/b' }] } },
      { ...updated, data: { ...updated.data, scope: { enterpriseId: '' } } },
      deleted,
    ];
    for (const event of broken) {
      expect(checkJsonSchema(schema, event)).not.toEqual([]);
      expect(EVENT_SCHEMAS['customer.updated'].safeParse(event).success).toBe(false);
    }
  });
});
