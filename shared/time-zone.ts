/** Calendar arithmetic in IANA time zones (Day time units start at local midnight). */

const DAY_MS = 24 * 60 * 60 * 1000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when the runtime knows `timeZone` as an IANA zone (`Europe/Prague`, `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of an instant in a time zone (month 1-based). */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock time of `epochMs` in `timeZone`. */
export function localTime(epochMs: number, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** UTC epoch of local midnight of a calendar date in `timeZone` (month 1-based). */
export function localMidnightUtc(
  year: number,
  month: number,
  day: number,
  timeZone: string,
): number {
  const wall = Date.UTC(year, month - 1, day);
  // Two passes settle the zone offset, also on DST change days (midnight itself never moves).
  let guess = wall;
  for (let pass = 0; pass < 2; pass += 1) {
    const local = localTime(guess, timeZone);
    const offset =
      Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) -
      guess;
    guess = wall - offset;
  }
  return guess;
}

/** True when `epochMs` is exactly local midnight in `timeZone` (products/getPricing rule 1). */
export function isLocalMidnight(epochMs: number, timeZone: string): boolean {
  if (epochMs % 1000 !== 0) return false;
  const local = localTime(epochMs, timeZone);
  return local.hour === 0 && local.minute === 0 && local.second === 0;
}

/** Every local-midnight start from `firstMs` to `lastMs` inclusive (both are midnights). */
export function dayStartsBetween(firstMs: number, lastMs: number, timeZone: string): number[] {
  const starts: number[] = [];
  const first = localTime(firstMs, timeZone);
  for (let offset = 0; ; offset += 1) {
    const date = new Date(Date.UTC(first.year, first.month - 1, first.day + offset));
    const start = localMidnightUtc(
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      timeZone,
    );
    if (start > lastMs) break;
    starts.push(start);
  }
  return starts;
}

/** Whole local days between two local midnights (23- and 25-hour DST days count as one). */
export function localDaysBetween(firstMs: number, lastMs: number, timeZone: string): number {
  const a = localTime(firstMs, timeZone);
  const b = localTime(lastMs, timeZone);
  return Math.round(
    (Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS,
  );
}

/**
 * Local midnight (as UTC epoch ms) of the calendar day that contains `epochMs` in `timeZone`,
 * shifted by `dayOffset` days: the start of a Day time unit (connector-api.md, operation 14).
 * @example dayStartUtc(Date.parse('2026-03-30T10:00:00Z'), 'Europe/Prague') // 2026-03-29T22:00:00Z
 */
export function dayStartUtc(epochMs: number, timeZone: string, dayOffset = 0): number {
  const local = localTime(epochMs, timeZone);
  const date = new Date(Date.UTC(local.year, local.month - 1, local.day + dayOffset));
  return localMidnightUtc(
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    timeZone,
  );
}
