import { describe, expect, it } from 'vitest';
import {
  dispatchEventPattern,
  type EventPattern,
  matchesEventPattern,
  parseEventPattern,
} from '../../shared/publish/routing-rule.ts';

const envelope = {
  version: '0',
  source: 'change-bridge',
  'detail-type': 'customer.updated',
  resources: ['change-bridge:enterprise/ent1', 'change-bridge:entity/customer/c1'],
  detail: {
    type: 'customer.updated',
    data: {
      entityType: 'customer',
      change: 'updated',
      scope: { enterpriseId: 'ent1' },
      truncated: false,
    },
  },
};

describe('matchesEventPattern', () => {
  it('matches the dispatch rule on our source and on nothing else', () => {
    expect(dispatchEventPattern()).toEqual({ source: ['change-bridge'] });
    expect(matchesEventPattern(dispatchEventPattern(), envelope)).toBe(true);
    expect(matchesEventPattern(dispatchEventPattern(), { ...envelope, source: 'aws.s3' })).toBe(
      false,
    );
    expect(matchesEventPattern(dispatchEventPattern('acme'), envelope)).toBe(false);
  });

  it('matches exact values in nested detail fields, any of a list', () => {
    expect(
      matchesEventPattern({ detail: { data: { entityType: ['resource', 'customer'] } } }, envelope),
    ).toBe(true);
    expect(matchesEventPattern({ detail: { data: { entityType: ['resource'] } } }, envelope)).toBe(
      false,
    );
    expect(matchesEventPattern({ detail: { data: { truncated: [false] } } }, envelope)).toBe(true);
  });

  it('requires every field of the pattern to match', () => {
    const pattern = { source: ['change-bridge'], 'detail-type': ['customer.created'] };
    expect(matchesEventPattern(pattern, envelope)).toBe(false);
  });

  it('matches a prefix, and an array value when any element matches', () => {
    expect(matchesEventPattern({ 'detail-type': [{ prefix: 'customer.' }] }, envelope)).toBe(true);
    expect(
      matchesEventPattern({ resources: [{ prefix: 'change-bridge:enterprise/ent1' }] }, envelope),
    ).toBe(true);
    expect(matchesEventPattern({ resources: [{ prefix: 'change-bridge:chain/' }] }, envelope)).toBe(
      false,
    );
  });

  it('matches anything-but a value, a list or a prefix, never a missing field', () => {
    expect(
      matchesEventPattern(
        { detail: { data: { change: [{ 'anything-but': 'deleted' }] } } },
        envelope,
      ),
    ).toBe(true);
    expect(
      matchesEventPattern(
        { detail: { data: { change: [{ 'anything-but': ['updated', 'deleted'] }] } } },
        envelope,
      ),
    ).toBe(false);
    expect(
      matchesEventPattern(
        { 'detail-type': [{ 'anything-but': { prefix: 'customer.' } }] },
        envelope,
      ),
    ).toBe(false);
    expect(matchesEventPattern({ detail: { nothing: [{ 'anything-but': 'x' }] } }, envelope)).toBe(
      false,
    );
  });

  it('matches exists true on present leaves and exists false on missing fields', () => {
    expect(
      matchesEventPattern(
        { detail: { data: { scope: { enterpriseId: [{ exists: true }] } } } },
        envelope,
      ),
    ).toBe(true);
    expect(
      matchesEventPattern(
        { detail: { data: { scope: { chainId: [{ exists: true }] } } } },
        envelope,
      ),
    ).toBe(false);
    expect(
      matchesEventPattern(
        { detail: { data: { scope: { chainId: [{ exists: false }] } } } },
        envelope,
      ),
    ).toBe(true);
    expect(
      matchesEventPattern({ detail: { data: { change: [{ exists: false }] } } }, envelope),
    ).toBe(false);
  });

  it('matches suffix, equals-ignore-case, wildcard and numeric filters', () => {
    const cases: Array<[EventPattern, boolean]> = [
      [{ 'detail-type': [{ suffix: '.updated' }] }, true],
      [{ 'detail-type': [{ suffix: { 'equals-ignore-case': '.UPDATED' } }] }, true],
      [{ 'detail-type': [{ prefix: { 'equals-ignore-case': 'CUSTOMER.' } }] }, true],
      [{ 'detail-type': [{ 'equals-ignore-case': 'Customer.Updated' }] }, true],
      [{ 'detail-type': [{ wildcard: 'customer.*d' }] }, true],
      [{ 'detail-type': [{ wildcard: 'resource.*' }] }, false],
      [{ detail: { data: { count: [{ numeric: ['>', 0, '<=', 5] }] } } }, true],
      [{ detail: { data: { count: [{ numeric: ['>', 5] }] } } }, false],
      [{ detail: { data: { change: [{ 'anything-but': { suffix: 'ted' } }] } } }, false],
      [
        {
          detail: { data: { change: [{ 'anything-but': { 'equals-ignore-case': ['DELETED'] } }] } },
        },
        true,
      ],
    ];
    const withCount = {
      ...envelope,
      detail: { ...envelope.detail, data: { ...envelope.detail.data, count: 3 } },
    };
    for (const [pattern, expected] of cases) {
      expect(matchesEventPattern(pattern, withCount), JSON.stringify(pattern)).toBe(expected);
    }
  });

  it('matches $or when any alternative does', () => {
    const pattern: EventPattern = {
      source: ['change-bridge'],
      $or: [{ 'detail-type': ['resource.updated'] }, { detail: { data: { change: ['updated'] } } }],
    };
    expect(matchesEventPattern(pattern, envelope)).toBe(true);
    expect(matchesEventPattern({ $or: [{ source: ['a'] }, { source: ['b'] }] }, envelope)).toBe(
      false,
    );
  });
});

describe('matchesEventPattern on arrays of objects', () => {
  // EventBridge (its Event Ruler) treats the objects of an array as values of the parent
  // field, each object on its own: a rule on `detail.data.patch.op` sees every operation.
  const withPatch = {
    ...envelope,
    detail: {
      ...envelope.detail,
      data: {
        ...envelope.detail.data,
        patch: [
          { op: 'replace', path: '/Email', value: 'a@b.c' },
          { op: 'remove', path: '/Phone' },
        ],
        current: { Addresses: [[{ City: 'Prague' }], [{ City: 'Brno' }]] },
      },
    },
  };

  it('matches a field of any object in an array, nested arrays included', () => {
    expect(
      matchesEventPattern({ detail: { data: { patch: { op: ['remove'] } } } }, withPatch),
    ).toBe(true);
    expect(
      matchesEventPattern(
        { detail: { data: { patch: { path: [{ prefix: '/Ph' }] } } } },
        withPatch,
      ),
    ).toBe(true);
    expect(
      matchesEventPattern(
        { detail: { data: { current: { Addresses: { City: ['Brno'] } } } } },
        withPatch,
      ),
    ).toBe(true);
    expect(matchesEventPattern({ detail: { data: { patch: { op: ['add'] } } } }, withPatch)).toBe(
      false,
    );
    const emptyPatch = { ...envelope, detail: { ...envelope.detail, data: { patch: [] } } };
    expect(
      matchesEventPattern({ detail: { data: { patch: { op: [{ exists: false }] } } } }, emptyPatch),
    ).toBe(true);
  });

  it('matches a value inside nested arrays of values', () => {
    const nested = {
      ...envelope,
      detail: { ...envelope.detail, data: { current: { Tags: [['vip'], ['late', 'quiet']] } } },
    };
    expect(matchesEventPattern({ detail: { data: { current: { Tags: ['late'] } } } }, nested)).toBe(
      true,
    );
    expect(
      matchesEventPattern({ detail: { data: { current: { Tags: [{ prefix: 'qu' }] } } } }, nested),
    ).toBe(true);
    expect(matchesEventPattern({ detail: { data: { current: { Tags: ['none'] } } } }, nested)).toBe(
      false,
    );
  });

  it('matches the fields of one pattern within one object of the array, never across two', () => {
    const pattern = { detail: { data: { patch: { op: ['remove'], path: ['/Phone'] } } } };
    expect(matchesEventPattern(pattern, withPatch)).toBe(true);
    const across = { detail: { data: { patch: { op: ['remove'], path: ['/Email'] } } } };
    expect(matchesEventPattern(across, withPatch)).toBe(false);
  });
});

describe('parseEventPattern', () => {
  it('reads the patterns ListRules returns', () => {
    expect(
      parseEventPattern(
        '{"source":["change-bridge"],"detail":{"data":{"changedFields":["Email"]}}}',
      ),
    ).toEqual({
      source: ['change-bridge'],
      detail: { data: { changedFields: ['Email'] } },
    });
  });

  it('refuses what the matcher does not know, so the caller can assume the rule matches all', () => {
    for (const text of [
      '{"detail":{"ip":[{"cidr":"10.0.0.0/24"}]}}',
      '{"source":[{"prefix":"a","suffix":"b"}]}',
      '{"source":[{"numeric":[">","x"]}]}',
      '{"$or":[]}',
      'not json',
      '["source"]',
    ]) {
      expect(parseEventPattern(text), text).toBeUndefined();
    }
  });
});
