import { z } from 'zod';
import type { RandomSource } from '../clock.ts';

/**
 * Fault kinds the simulator injects. `rate-limit` 429 (with Retry-After), `timeout` 408,
 * `internal` 500, `conflict` 409 (restrictions/clear only in the contract, so random
 * faults never pick it), `slow` delays the real answer, `malformed` sends a 200 with a
 * truncated JSON body, `drop` destroys the connection without an answer.
 */
export const FaultKindSchema = z.enum([
  'rate-limit',
  'timeout',
  'internal',
  'conflict',
  'slow',
  'malformed',
  'drop',
]);
export type FaultKind = z.infer<typeof FaultKindSchema>;

/** Kinds a random fault is drawn from unless `kinds` says otherwise. */
export const RANDOM_FAULT_KINDS: readonly FaultKind[] = [
  'rate-limit',
  'timeout',
  'internal',
  'slow',
  'malformed',
  'drop',
];

/**
 * The longest delay of a `slow` fault: ten minutes, ten times the connector client's default
 * timeout. Past 2^31 - 1 ms a Node timer fires at once, so the "slow" answer came at once.
 */
export const SIM_MAX_SLOW_MS = 600_000;

/**
 * The longest `Retry-After` an injected 429 carries: a day. Above the client's own cap of an
 * hour (RETRY_AFTER_MAX_MS), so that cap stays testable, and far below where a client's timer
 * for it overflows (2^31 - 1 ms, some 24.8 days). Any safe integer was taken: a 429 said
 * `Retry-After: 9007199254740991`.
 */
export const SIM_MAX_RETRY_AFTER_SECONDS = 86_400;

/** Fault settings; every field is optional and `setFaults` merges them. */
export const FaultConfigSchema = z.object({
  /** Probability in [0, 1] that an `/api/` request gets a random fault. */
  rate: z.number().min(0).max(1).default(0),
  kinds: z
    .array(FaultKindSchema)
    .min(1)
    .default([...RANDOM_FAULT_KINDS]),
  /** Extra real-time latency of a `slow` fault (wire latency, so it is wall-clock time). */
  slowMs: z.number().int().min(0).max(SIM_MAX_SLOW_MS).default(1500),
  /**
   * Retry-After seconds an injected 429 carries (a whole number, 0 to
   * {@link SIM_MAX_RETRY_AFTER_SECONDS}); null sends a 429 without the header.
   */
  retryAfterSeconds: z.number().int().min(0).max(SIM_MAX_RETRY_AFTER_SECONDS).nullable().default(1),
  /** Faults for the next requests, in order, before any random draw (deterministic tests). */
  script: z.array(FaultKindSchema).default([]),
  /** Paginated requests asking for more than this Count get the timeout error (too heavy). */
  timeoutAboveCount: z.number().int().min(1).nullable().default(null),
});
export type FaultConfig = z.infer<typeof FaultConfigSchema>;
export type FaultConfigInput = z.input<typeof FaultConfigSchema>;

/** Holds the fault settings and decides, per request, which fault (if any) to inject. */
export class FaultInjector {
  private config: FaultConfig;

  constructor(
    input: FaultConfigInput,
    private readonly random: RandomSource,
  ) {
    this.config = FaultConfigSchema.parse(input);
  }

  /** Merges new settings over the current ones; a given `script` replaces the queue. */
  set(input: FaultConfigInput): FaultConfig {
    this.config = FaultConfigSchema.parse({ ...this.config, ...input });
    return this.current();
  }

  /** A copy of the current settings. */
  current(): FaultConfig {
    return { ...this.config, kinds: [...this.config.kinds], script: [...this.config.script] };
  }

  /** The fault for the next request: the scripted one first, else a random draw at `rate`. */
  next(): FaultKind | null {
    const scripted = this.config.script.shift();
    if (scripted) return scripted;
    if (this.config.rate <= 0 || this.random() >= this.config.rate) return null;
    const kinds = this.config.kinds;
    return kinds[Math.floor(this.random() * kinds.length)] ?? null;
  }
}
