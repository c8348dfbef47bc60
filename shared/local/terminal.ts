/** ANSI styles, applied only when the output is a TTY (design: colours only on a TTY). */
export interface Palette {
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  `\u001b[${open}m${text}\u001b[${close}m`;

/** Colours for a terminal. */
export const COLOR_PALETTE: Palette = {
  dim: wrap(2, 22),
  bold: wrap(1, 22),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  red: wrap(31, 39),
  cyan: wrap(36, 39),
};

/** No colours (pipes, files, CI). */
export const PLAIN_PALETTE: Palette = {
  dim: (t) => t,
  bold: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  red: (t) => t,
  cyan: (t) => t,
};

/** Picks the palette for a stream: colours only on a TTY and when NO_COLOR is unset. */
export function paletteFor(
  isTty: boolean | undefined,
  env: Record<string, string | undefined>,
): Palette {
  return isTty && env.NO_COLOR === undefined ? COLOR_PALETTE : PLAIN_PALETTE;
}

/** `HH:MM:SS` in UTC, the time column of every line. */
export function clockTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 19);
}

/** What an event line shows. */
export interface EventLineInput {
  time: number;
  type: string;
  subject: string;
  changedFields: readonly string[];
  /** The connection it came from, shown before the subject; left out for the only one (`local`). */
  connection?: string | undefined;
}

const FIELDS_SHOWN_MAX = 6;

/**
 * One concise line per event: time, type, the connection unless it is the run's own, subject,
 * changed fields.
 * @example formatEventLine({ time, type: 'customer.updated', subject: 'c1…', changedFields: ['Email'] }, PLAIN_PALETTE)
 * // '10:01:02  customer.updated          c1…  Email'
 */
export function formatEventLine(event: EventLineInput, palette: Palette): string {
  const kind = event.type.split('.').at(-1);
  const color =
    kind === 'created' ? palette.green : kind === 'deleted' ? palette.red : palette.cyan;
  // A created event lists every field as changed: only an update's fields are news.
  const changed = kind === 'updated' ? event.changedFields : [];
  const fields = changed.slice(0, FIELDS_SHOWN_MAX).join(', ');
  const more = changed.length > FIELDS_SHOWN_MAX ? ` +${changed.length - FIELDS_SHOWN_MAX}` : '';
  const from = event.connection ? `${palette.dim(event.connection)}  ` : '';
  return `${palette.dim(clockTime(event.time))}  ${color(event.type.padEnd(40))}  ${from}${event.subject}${fields ? `  ${palette.dim(fields + more)}` : ''}`;
}

/**
 * A text progress bar: `[██████░░░░░░] 50%  label`.
 * @example progressBar(0.5, 12, 'customer') === '[██████░░░░░░]  50%  customer'
 */
export function progressBar(fraction: number, width: number, label: string): string {
  const clamped = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const filled = Math.round(clamped * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.round(clamped * 100)).padStart(3)}%  ${label}`;
}

/**
 * A count with thousands separators, the same on every machine.
 * @example formatCount(41200) === '41,200'
 */
export function formatCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/**
 * A count and what it counts, in the singular for one ({@link formatCount}).
 * @example countOf(1, 'webhook') === '1 webhook'; countOf(41200, 'record') === '41,200 records'
 */
export function countOf(count: number, singular: string): string {
  return `${formatCount(count)} ${singular}${Math.round(count) === 1 ? '' : 's'}`;
}

/**
 * A duration as people say it, coarser as it grows: `12 s` below 90 s, `4 min` below 90
 * minutes, then `2 h 5 min`.
 * @example formatDuration(75) === '75 s'; formatDuration(250) === '4 min'
 */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 90) return `${whole} s`;
  const minutes = Math.round(whole / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
