import { describe, expect, it } from 'vitest';
import {
  formatCount,
  formatDuration,
  formatEventLine,
  PLAIN_PALETTE,
  paletteFor,
  progressBar,
} from '../../shared/local/terminal.ts';

const TIME = Date.parse('2026-11-21T10:01:02Z');

describe('terminal output', () => {
  it('prints one line per event with time, type, subject and the fields an update changed', () => {
    const line = formatEventLine(
      { time: TIME, type: 'customer.updated', subject: 'c1', changedFields: ['Email', 'Phone'] },
      PLAIN_PALETTE,
    );
    expect(line).toMatch(/^10:01:02 {2}customer\.updated +c1 {2}Email, Phone$/);
  });

  it('lists no fields for a created event and shortens long lists', () => {
    expect(
      formatEventLine(
        { time: TIME, type: 'resource.created', subject: 'r1', changedFields: ['Name', 'State'] },
        PLAIN_PALETTE,
      ),
    ).toMatch(/r1$/);
    const many = formatEventLine(
      { time: TIME, type: 'resource.updated', subject: 'r1', changedFields: 'ABCDEFGH'.split('') },
      PLAIN_PALETTE,
    );
    expect(many).toMatch(/A, B, C, D, E, F \+2$/);
  });

  it('uses colours only on a TTY without NO_COLOR', () => {
    expect(paletteFor(false, {})).toBe(PLAIN_PALETTE);
    expect(paletteFor(true, { NO_COLOR: '1' })).toBe(PLAIN_PALETTE);
    expect(paletteFor(true, {})).not.toBe(PLAIN_PALETTE);
  });

  it('draws a progress bar', () => {
    expect(progressBar(0.5, 12, 'customer')).toBe('[██████░░░░░░]  50%  customer');
  });

  it('writes counts with thousands separators', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(41_200)).toBe('41,200');
    expect(formatCount(1_234_567)).toBe('1,234,567');
  });

  it('writes durations coarser as they grow', () => {
    expect(formatDuration(12)).toBe('12 s');
    expect(formatDuration(89)).toBe('89 s');
    expect(formatDuration(250)).toBe('4 min');
    expect(formatDuration(89 * 60)).toBe('89 min');
    expect(formatDuration(125 * 60)).toBe('2 h 5 min');
    expect(formatDuration(-3)).toBe('0 s');
  });
});
