import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/changes/canonical.ts';
import type { EntityRecord } from '../../shared/changes/entity-types.ts';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { type EventIdParts, eventId } from '../../shared/changes/event-id.ts';
import { type ChangeContext, computeChanges } from '../../shared/polling/page-changes.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { applyJsonPatch, pointerTokens } from './apply-json-patch.ts';

// design.md, Public contracts (Event) and Rules of behaviour (Changes), checked on random
// records as a consumer reads the events: parsed from their JSON.

const RUNS = { numRuns: 100 };
const VOLATILE = 'UpdatedUtc';

/** Keys as records may have them, with the ones a JSON Pointer must escape or that JS treats specially. */
const key = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.constantFrom('~', '/', '~0', '~1', 'a/b~c', '', '0', '__proto__', 'constructor', VOLATILE),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 6 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value as a consumer gets it: through JSON (own `__proto__` members, no -0, no undefined). */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const record = fc.dictionary(key, jsonValue, { maxKeys: 6 }).map((value) => wire(value));

/** A later version of `previous`: members kept, replaced, removed, added; nested values edited. */
function edited(previous: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(previous);
  return fc
    .tuple(
      fc.subarray(keys),
      fc.dictionary(fc.oneof(fc.constantFrom(...keys, 'Added'), key), jsonValue, { maxKeys: 3 }),
    )
    .map(([kept, changed]) => {
      const next = JSON.parse('{}') as Record<string, unknown>;
      for (const k of kept)
        Object.defineProperty(next, k, { value: previous[k], enumerable: true });
      return wire({ ...next, ...wire(changed) });
    });
}

const versions = record.chain((previous) =>
  fc.tuple(fc.constant(previous), fc.oneof(edited(previous), record)),
);

/** JSON equality written for this test alone: key order does not matter, array order does. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length
      ? a.every((item, i) => sameJson(item, b[i]))
      : false;
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keysA = Object.keys(a);
    return (
      keysA.length === Object.keys(b).length &&
      keysA.every((k) => Object.hasOwn(b, k) && sameJson(a[k as never], b[k as never]))
    );
  }
  return a === b;
}

/** Top-level keys whose values differ (present on one side only counts), volatile left out. */
function differingKeys(previous: Record<string, unknown>, current: Record<string, unknown>) {
  const keys = new Set([...Object.keys(previous), ...Object.keys(current)]);
  keys.delete(VOLATILE);
  return [...keys]
    .filter(
      (k) =>
        Object.hasOwn(previous, k) !== Object.hasOwn(current, k) ||
        !sameJson(previous[k], current[k]),
    )
    .sort();
}

/** The same JSON value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out = JSON.parse('{}') as Record<string, unknown>;
  for (const k of Object.keys(value).reverse()) {
    const member = reversedKeys((value as Record<string, unknown>)[k]);
    Object.defineProperty(out, k, { value: member, enumerable: true, writable: true });
  }
  return out;
}

const base = {
  connectionId: 'main',
  entityType: 'customer',
  entityId: 'c1',
  scope: {},
  detectedAt: Date.UTC(2026, 0, 2, 9, 30),
} as const;

const context: ChangeContext = {
  connectionId: 'main',
  entityType: 'customer',
  scope: {},
  volatileFields: [VOLATILE],
  emitCreated: true,
  now: Date.UTC(2026, 0, 2, 9, 30),
};

function stored(previous: EntityRecord): Map<string, StoredSnapshot> {
  const snapshot = { entityId: 'c1', hash: contentHash(previous), record: previous, scope: {} };
  return new Map([['c1', { ...snapshot, updatedAt: Date.UTC(2026, 0, 1) }]]);
}

describe('the patch of an updated event', () => {
  it('turns previous into current under a strict RFC 6902 applier, after a JSON round trip', () => {
    fc.assert(
      fc.property(versions, ([previous, current]) => {
        const event = wire(buildChangeEvent({ ...base, change: 'updated', previous, current }));
        const { patch = [] } = event.data;
        expect(sameJson(applyJsonPatch(event.data.previous, patch), event.data.current)).toBe(true);
        expect(patch.length === 0).toBe(sameJson(previous, current));
        for (const operation of patch) expect(() => pointerTokens(operation.path)).not.toThrow();
      }),
      RUNS,
    );
  });

  it('names exactly the top-level fields that differ, UpdatedUtc left out, sorted', () => {
    fc.assert(
      fc.property(versions, ([previous, current]) => {
        const event = buildChangeEvent({ ...base, change: 'updated', previous, current });
        expect(event.data.changedFields).toEqual(differingKeys(previous, current));
      }),
      RUNS,
    );
  });
});

describe('created and deleted events', () => {
  it('a created event has previous null, an empty patch and every non-volatile field', () => {
    fc.assert(
      fc.property(record, (current) => {
        const { data } = wire(buildChangeEvent({ ...base, change: 'created', current }));
        expect([data.previous, data.patch]).toEqual([null, []]);
        expect(data.changedFields).toEqual(
          Object.keys(current)
            .filter((k) => k !== VOLATILE)
            .sort(),
        );
        expect(sameJson(data.current, current)).toBe(true);
      }),
      RUNS,
    );
  });

  it('a deleted event has current null and the last snapshot as previous', () => {
    fc.assert(
      fc.property(record, (previous) => {
        const { data } = wire(buildChangeEvent({ ...base, change: 'deleted', previous }));
        expect([data.current, data.changedFields, data.patch]).toEqual([null, [], []]);
        expect(sameJson(data.previous, previous)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('change detection on a page (computeChanges)', () => {
  it('emits nothing and stores nothing for a record only touched (UpdatedUtc, key order)', () => {
    fc.assert(
      fc.property(record, fc.date({ noInvalidDate: true }), (previous, touchedAt) => {
        const touched = reversedKeys({ ...previous, [VOLATILE]: touchedAt.toISOString() });
        const observed = [{ entityId: 'c1', record: touched as EntityRecord }];
        expect(computeChanges(observed, stored(previous), context)).toEqual({
          events: [],
          writes: [],
        });
      }),
      RUNS,
    );
  });

  it('emits one updated event, with the same id when detected again, for any other change', () => {
    fc.assert(
      fc.property(versions, ([previous, current]) => {
        fc.pre(differingKeys(previous, current).length > 0);
        // Read after the stored version: an older one is no news (page-changes.ts, readBefore).
        const stamped = { ...previous, [VOLATILE]: '2026-01-01T00:00:00.000Z' };
        const observed = [
          { entityId: 'c1', record: { ...current, [VOLATILE]: '2026-01-02T00:00:00.000Z' } },
        ];
        const first = computeChanges(observed, stored(stamped), context);
        const again = computeChanges(observed, stored(stamped), {
          ...context,
          now: context.now + 1,
        });
        expect(first.events.map((event) => event.type)).toEqual(['customer.updated']);
        expect(again.events.map((event) => event.id)).toEqual(
          first.events.map((event) => event.id),
        );
      }),
      RUNS,
    );
  });
});

describe('event ids', () => {
  const parts = fc.record({
    connectionId: fc.constantFrom('main', 'other', 'main:'),
    entityType: fc.constantFrom('customer', 'resource', 'accountNote'),
    entityId: fc.constantFrom('c1', 'c2', ':c1', ''),
    change: fc.constantFrom('created', 'updated', 'deleted'),
    contentHash: fc.constantFrom('a1', 'b2', ''),
  }) satisfies fc.Arbitrary<EventIdParts>;

  it('are equal exactly when connection, entity type, entity id, change kind and content are', () => {
    fc.assert(
      fc.property(parts, parts, (a, b) => {
        expect(eventId(a) === eventId(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 200 },
    );
  });

  it('differ for changes whose records differ in content other than UpdatedUtc', () => {
    fc.assert(
      fc.property(versions, ([previous, current]) => {
        const first = buildChangeEvent({ ...base, change: 'created', current: previous });
        const second = buildChangeEvent({ ...base, change: 'created', current });
        expect(first.id === second.id).toBe(differingKeys(previous, current).length === 0);
      }),
      RUNS,
    );
  });
});
