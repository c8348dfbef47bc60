import { describe, expect, it } from 'vitest';
import { MessageTable } from '../../shared/local/disk-queue/message-table.ts';

function rowsOf(table: MessageTable<number>): number[] {
  const rows: number[] = [];
  table.forEachRow((row) => {
    rows.push(row);
  });
  return rows;
}

describe('MessageTable', () => {
  it('keeps each message its own row, past the room it starts with, and hands a removed row afresh to the next', () => {
    const table = new MessageTable<number>();
    const rows = Array.from({ length: 3_000 }, (_, seq) =>
      table.add(seq, 1_000 + seq, seq % 4, seq * 100, 90 + (seq % 7)),
    );
    expect(table.size).toBe(3_000);
    const row = rows[2_500]!;
    expect(table.holds(row, 2_500)).toBe(true);
    expect([
      table.seq(row),
      table.visibleAt(row),
      table.segment(row),
      table.offset(row),
      table.length(row),
    ]).toEqual([2_500, 3_500, 0, 250_000, 90 + (2_500 % 7)]);

    table.countReceive(row, 42);
    table.countReceive(row, 99);
    table.setReceipt(row, 7);
    expect(table.setVisibleAt(row, 5_000)).toBe(1);
    expect([
      table.receiveCount(row),
      table.firstReceiveAt(row),
      table.receipt(row),
      table.version(row),
    ]).toEqual([2, 42, 7, 1]);

    table.remove(row);
    expect(table.holds(row, 2_500)).toBe(false);
    expect(table.size).toBe(2_999);
    expect(rowsOf(table)).not.toContain(row);

    const reused = table.add(9_000, 1, 3, 8, 9);
    expect(reused).toBe(row);
    expect(table.holds(reused, 2_500)).toBe(false);
    expect(table.holds(reused, 9_000)).toBe(true);
    expect([
      table.receiveCount(reused),
      table.firstReceiveAt(reused),
      table.receipt(reused),
      table.version(reused),
    ]).toEqual([0, 0, 0, 0]);
    expect(new Set(rowsOf(table)).size).toBe(3_000);
  });

  it('holds no row it never handed out, and moves a message to its record copy', () => {
    const table = new MessageTable<number>();
    const row = table.add(0, 0, 2, 10, 50);
    expect(table.holds(row + 1, 0)).toBe(false);
    table.move(row, 5, 300);
    expect([table.segment(row), table.offset(row), table.length(row)]).toEqual([5, 300, 50]);
  });
});
