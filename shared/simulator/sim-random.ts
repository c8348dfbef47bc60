import type { RandomSource } from '../clock.ts';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Helpers over an injected {@link RandomSource}: every value the simulator invents comes
 * from here, so one seed always yields the same dataset and the same activity.
 */
export class SimRandom {
  constructor(readonly source: RandomSource) {}

  /** A version-4 UUID built from the source. */
  uuid(): string {
    const bytes: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const word = Math.floor(this.source() * 0x1_0000_0000);
      bytes.push(word >>> 24, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff);
    }
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.map((byte) => HEX[byte]).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.source() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.source() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.source() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Up to `max` distinct elements, in the array's order. */
  subset<T>(items: readonly T[], max: number): T[] {
    const wanted = this.int(0, Math.min(max, items.length));
    const chosen = new Set<number>();
    while (chosen.size < wanted) chosen.add(Math.floor(this.source() * items.length));
    return [...chosen].sort((a, b) => a - b).map((index) => items[index]!);
  }

  /** A money value with two decimals in [min, max]. */
  money(min: number, max: number): number {
    return Math.round((min + this.source() * (max - min)) * 100) / 100;
  }
}

/** A random source whose stream can be replaced while its users keep drawing from it. */
export interface SwitchableRandom {
  /** Draws from the current stream. */
  readonly source: RandomSource;
  /** Makes every later draw come from `next`. */
  switchTo(next: RandomSource): void;
}

/**
 * A {@link SwitchableRandom} starting on `initial`: the dataset is drawn from the seed's stream,
 * and what follows it (activity, API writes) may be drawn from another.
 * @example const stream = switchableRandom(seededRandom(1)); stream.switchTo(seededRandom(2));
 */
export function switchableRandom(initial: RandomSource): SwitchableRandom {
  let current = initial;
  return {
    source: () => current(),
    switchTo: (next) => {
      current = next;
    },
  };
}

/** Milliseconds per day. */
export const DAY_MS = 86_400_000;

/** ISO 8601 UTC text of an epoch time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO 8601 date (YYYY-MM-DD) of an epoch time. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
