import { describe, expect, it } from 'vitest';
import { keepGroupOrder } from '../../shared/webhooks/fifo-group-order.ts';

const record = (messageId: string, group?: string) => ({
  messageId,
  ...(group === undefined ? {} : { attributes: { MessageGroupId: group } }),
});
const failures = (...ids: string[]) => ({
  batchItemFailures: ids.map((itemIdentifier) => ({ itemIdentifier })),
});

describe('keepGroupOrder', () => {
  it('fails every later record of a failed record’s group, and no other', () => {
    const records = [
      record('1', 'customer:a'),
      record('2', 'customer:b'),
      record('3', 'customer:a'),
      record('4', 'customer:b'),
      record('5', 'customer:a'),
    ];
    expect(keepGroupOrder(records, failures('3'))).toEqual(failures('3', '5'));
    expect(keepGroupOrder(records, failures('1', '4'))).toEqual(failures('1', '4', '3', '5'));
    expect(keepGroupOrder(records, failures())).toEqual(failures());
  });

  it('leaves a standard queue’s answer as it is (its records have no group)', () => {
    const records = [record('1'), record('2'), record('3')];
    expect(keepGroupOrder(records, failures('1'))).toEqual(failures('1'));
  });
});
