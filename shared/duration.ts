import { z } from 'zod';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a duration such as `500ms`, `5s`, `1m`, `2h`, `1d` (a bare number is milliseconds).
 * Returns undefined when the text is not a duration.
 * @example parseDuration('5s') === 5000
 */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
}

/**
 * A zod schema for duration text, giving milliseconds; the error names the expected form, not
 * the text (an environment variable's value may be a secret set in the wrong variable).
 */
export const DurationSchema = z.string().transform((text, context) => {
  const ms = parseDuration(text);
  if (ms === undefined) {
    context.addIssue({
      code: 'custom',
      message: 'is not a duration (e.g. 500ms, 5s, 1m, 2h)',
    });
    return z.NEVER;
  }
  return ms;
});

/** Formats milliseconds for people: `1.5s`, `2m`, `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)}m`;
  return `${+(ms / 3_600_000).toFixed(1)}h`;
}
