/** Types of diff.js (a browser module of the console, also tested under Node). */

/** One leaf that differs between two records. */
export interface DiffRow {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** The differences from `previous` to `current`, in path order. */
export function diffRecords(previous: unknown, current: unknown): DiffRow[];

/** A value as one line of text: strings as they are, the rest as JSON. */
export function showValue(value: unknown): string;
