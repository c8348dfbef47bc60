import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { toSqsRecord } from '../shared/local/event-source-loop.ts';
import { toEventBridgeEnvelope } from '../shared/publish/event-bridge-envelope.ts';
import type { PublishableEvent } from '../shared/publish/publishable-event.ts';
import { EntitySet } from '../shared/simulator/entity-set.ts';
import { toSnapshotItem } from '../shared/state/dynamodb-items.ts';
import { prepareSnapshots } from '../shared/state/prepare-snapshots.ts';
import { withMembers } from '../shared/with-members.ts';

/**
 * The objects the bridge makes once per record or per delivery share V8's hidden classes.
 * Node 20's V8 gives an object that begins as a spread copy of another and then gains a member
 * a hidden class of its own, made anew for every object (see shared/with-members.ts); in an
 * emitting backfill that was seven classes a record. Checked with V8's own %HaveSameMap.
 */
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: object,
  b: object,
) => boolean;
const hasFastProperties = new Function('a', 'return %HasFastProperties(a)') as (
  a: object,
) => boolean;

function customer(id: string, name: string): Record<string, unknown> {
  return { Id: id, FirstName: name, UpdatedUtc: '2026-12-01T10:00:00Z' };
}

/** Whether the last two of `count` objects made by `make` share a hidden class (V8 shares the first few either way). */
function lastTwoShare(count: number, make: (index: number) => object): boolean {
  const made = Array.from({ length: count }, (_, index) => make(index));
  return haveSameMap(made.at(-2)!, made.at(-1)!);
}

describe('objects made per record or delivery', () => {
  it('snapshot items share one hidden class', () => {
    const prepared = prepareSnapshots(
      'main#customer',
      Array.from({ length: 50 }, (_, index) => ({
        entityId: `c-${index}`,
        hash: `h${index}`,
        updatedAt: index,
        record: customer(`c-${index}`, `Name ${index}`),
      })),
    );
    expect(
      lastTwoShare(50, (index) =>
        toSnapshotItem('main#customer', prepared[index]!, Number.POSITIVE_INFINITY),
      ),
    ).toBe(true);
  });

  it('EventBridge envelopes share one hidden class', () => {
    const envelopeOf = (id: string) =>
      toEventBridgeEnvelope(
        { Source: 'change-bridge', DetailType: 'customer.updated', Detail: '{}', Resources: [] },
        { id, type: 'customer.updated' } as unknown as PublishableEvent,
        { id, account: '000000000000', region: 'eu-west-1', receivedAt: new Date(0) },
      ).envelope;
    expect(lastTwoShare(50, (index) => envelopeOf(`e-${index}`))).toBe(true);
  });

  it("the simulator's stored entries share one hidden class", () => {
    const set = new EntitySet<{ Id: string }>((record) => record.Id);
    const meta = (index: number) => ({
      enterpriseId: index % 2 === 0 ? 'ent-1' : null,
      chainId: 'chain-1',
      createdMs: index,
      updatedMs: index,
    });
    expect(lastTwoShare(50, (index) => set.insert({ Id: `r-${index}` }, meta(index)))).toBe(true);
  });

  it('Lambda records of the local queue, their MD5 read when read, stay fast objects of one class', () => {
    const recordOf = (index: number) =>
      toSqsRecord(
        { MessageId: `m-${index}`, ReceiptHandle: `r-${index}`, Body: `{"n":${index}}` },
        'arn:aws:sqs:eu-west-1:000000000000:q',
        'eu-west-1',
      );
    expect(lastTwoShare(50, recordOf)).toBe(true);
    const record = recordOf(1);
    expect(hasFastProperties(record)).toBe(true);
    expect(Object.keys(record)).toContain('md5OfBody');
    expect({ ...record }.md5OfBody).toBe('');
  });

  it('withMembers copies as a spread does, and its copies share one hidden class', () => {
    const delivery = (id: string) => ({ id, attempts: 0, version: 1 });
    const first = withMembers(delivery('d-1'), { attempts: 1, lastStatus: 200 });
    expect(first).toEqual({ ...delivery('d-1'), attempts: 1, lastStatus: 200 });
    expect(Object.keys(first)).toEqual(['id', 'attempts', 'version', 'lastStatus']);
    expect(
      lastTwoShare(50, (index) =>
        withMembers(delivery(`d-${index}`), { attempts: 1, lastStatus: index }),
      ),
    ).toBe(true);
  });
});
