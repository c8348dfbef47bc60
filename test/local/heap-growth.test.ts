import { describe, expect, it } from 'vitest';
import { heapFlagsGiven } from '../../shared/local/heap-growth.ts';

describe('heapFlagsGiven', () => {
  it('sees a heap flag among node arguments or in NODE_OPTIONS, in either spelling', () => {
    expect(heapFlagsGiven(['--max-old-space-size=512'], undefined)).toBe(true);
    expect(heapFlagsGiven([], '--enable-source-maps --heap_growing_percent=30')).toBe(true);
    expect(heapFlagsGiven(['--optimize-for-size'], '')).toBe(true);
  });

  it('leaves the heap to the bridge when no flag sizes it', () => {
    expect(heapFlagsGiven([], undefined)).toBe(false);
    expect(heapFlagsGiven(['--enable-source-maps', '--cpu-prof'], '--trace-warnings')).toBe(false);
  });
});
