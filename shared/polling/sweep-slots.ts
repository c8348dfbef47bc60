import { FNV_OFFSET, fnv1a } from '../fnv1a.ts';
import type { PollSpec } from './poll-spec.ts';
import { STAGGER_FROM_INTERVAL_MS } from './stream-phase.ts';

/**
 * The period of a stream's sweep (or, customers, of its deletion read): undefined for a stream
 * that has neither. Pure.
 */
export function sweepIntervalOf(spec: PollSpec): number | undefined {
  if (spec.strategy !== 'windowed') return undefined;
  return spec.sweep?.intervalMs ?? spec.deletions?.intervalMs;
}

/**
 * The connector counts a token's requests per 30 s (connector-api.md): the instants a stream
 * polled more often than that may sweep at are this far apart (its polls are not staggered, so
 * any moment is one of its polls).
 */
export const SWEEP_SLOT_STEP_MS = 30_000;

/**
 * The instants a stream may sweep at, `phaseMs + k·everyMs` from the epoch ({@link nextSweepAt}
 * picks one per period).
 */
export interface SweepSlots {
  everyMs: number;
  phaseMs: number;
}

/**
 * A stable fraction in [0, 1) of `text` (32-bit FNV-1a): the same for the same text in every
 * process and release, spread evenly over different texts. Pure.
 * @example stableFraction('main') === stableFraction('main')
 */
export function stableFraction(text: string): number {
  return (fnv1a(FNV_OFFSET, text) >>> 0) / 2 ** 32;
}

/** A stream that sweeps, as {@link sweepSlotsOf} places it. */
export interface SweptStream {
  streamId: string;
  /** Its poll interval and phase: a sweep runs in one of its polls, so on that poll's slot. */
  intervalMs: number;
  phaseMs: number;
  /** Its sweep's period ({@link sweepIntervalOf}). */
  sweepIntervalMs: number;
}

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

/** Distance between two instants of a cycle of `cycleMs`, the shorter way round. */
function cycleDistance(a: number, b: number, cycleMs: number): number {
  const d = (((a - b) % cycleMs) + cycleMs) % cycleMs;
  return Math.min(d, cycleMs - d);
}

/** How far apart the instants `stream` polls at are (any instant for an unstaggered stream). */
function pollStepOf(stream: SweptStream): number {
  return stream.intervalMs >= STAGGER_FROM_INTERVAL_MS ? stream.intervalMs : SWEEP_SLOT_STEP_MS;
}

/**
 * The spacing of a stream's sweep slots: the longest that divides its period, is at most half
 * of it (so a sweep never follows the last, or a first sync, within half a period) and is a
 * whole number of its poll steps (so each slot is one of its polls). Half the period when none is.
 */
function slotSpacingOf(stream: SweptStream): number {
  const step = pollStepOf(stream);
  for (let parts = 2; stream.sweepIntervalMs / parts >= step; parts++) {
    const every = stream.sweepIntervalMs / parts;
    if (Number.isInteger(every) && every % step === 0) return every;
  }
  return Math.floor(stream.sweepIntervalMs / 2);
}

/**
 * The sweep slots of each of a connection's swept streams. So that the sweeps of one
 * connection's streams do not spend its token's budget in one 30 s window (however they were
 * synced), every instant any of them may sweep at is placed apart from the others' within their
 * shortest common cycle, on one of its own polls (a sweep runs in its stream's poll, which would
 * otherwise put it off by up to a poll interval), as far from the others as those polls allow;
 * the streams with the fewest polls to choose from are placed first. Where the connection's
 * spread starts, and in which half of its period a stream's slots fall, come from stable hashes
 * of the connection and stream ids, so that many connections' sweeps do not coincide either.
 * The same streams get the same slots in every process. Pure.
 * @example sweepSlotsOf('main', [{ streamId: 'main:resource', intervalMs: 60_000, phaseMs: 0, sweepIntervalMs: 3_600_000 }])
 */
export function sweepSlotsOf(
  connectionId: string,
  streams: readonly SweptStream[],
): Map<string, SweepSlots> {
  const slots = new Map<string, SweepSlots>();
  if (streams.length === 0) return slots;
  const cycleMs = streams.map((s) => s.sweepIntervalMs).reduce(greatestCommonDivisor);
  const startMs = Math.floor(stableFraction(connectionId) * cycleMs);
  const placed = streams
    .map((stream) => {
      const everyMs = slotSpacingOf(stream);
      // The instants of the cycle a stream's slot stands for: its sweeps fall on any of them,
      // by the moment of its first sync.
      const repeatMs = greatestCommonDivisor(everyMs, cycleMs);
      const step = pollStepOf(stream);
      const base = stream.intervalMs >= STAGGER_FROM_INTERVAL_MS ? stream.phaseMs % step : 0;
      const count = Math.max(1, Math.floor(repeatMs / step));
      const candidates = Array.from({ length: count }, (_, m) => (base + m * step) % repeatMs);
      return { stream, everyMs, repeatMs, candidates };
    })
    .sort((a, b) => a.candidates.length - b.candidates.length);
  const taken: number[] = [];
  for (const { stream, everyMs, repeatMs, candidates } of placed) {
    const copies = (at: number) =>
      Array.from({ length: Math.max(1, cycleMs / repeatMs) }, (_, k) => at + k * repeatMs);
    let best = candidates[0]!;
    let bestDistance = -1;
    let bestLead = Number.POSITIVE_INFINITY;
    for (const candidate of candidates) {
      let distance = Number.POSITIVE_INFINITY;
      for (const copy of copies(candidate))
        for (const other of taken)
          distance = Math.min(distance, cycleDistance(copy, other, cycleMs));
      const lead = (((candidate - startMs) % repeatMs) + repeatMs) % repeatMs;
      if (distance > bestDistance || (distance === bestDistance && lead < bestLead)) {
        best = candidate;
        bestDistance = distance;
        bestLead = lead;
      }
    }
    taken.push(...copies(best));
    const turns = Math.max(1, Math.floor(everyMs / repeatMs));
    const turn = Math.floor(stableFraction(stream.streamId) * turns);
    slots.set(stream.streamId, { everyMs, phaseMs: (best + turn * repeatMs) % everyMs });
  }
  return slots;
}

/**
 * When a stream whose last sweep (or first sync) ended at `lastSweepAt` (a deletion read: the
 * instant its first sync began) sweeps next: at its first slot more than a period less the
 * slots' spacing after it. So within one period of it, never within half a period, and, for a
 * sweep late by less than the spacing, exactly a period after the slot it was due at: the
 * sweeps keep their slots. Pure.
 * @example nextSweepAt(100_000, 900_000, { everyMs: 300_000, phaseMs: 30_000 }) === 930_000
 */
export function nextSweepAt(lastSweepAt: number, intervalMs: number, slots: SweepSlots): number {
  const after = lastSweepAt + intervalMs - slots.everyMs;
  return slots.phaseMs + (Math.floor((after - slots.phaseMs) / slots.everyMs) + 1) * slots.everyMs;
}
