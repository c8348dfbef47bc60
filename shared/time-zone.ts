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

/** The shape en-US gives the formatter's fields: `12/3/2026, 21:05:07` (month/day/year). */
const EN_US_WALL_CLOCK = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/**
 * The wall-clock time of `epochMs` in `timeZone`. Read from the formatted string, which costs
 * about a third of `formatToParts` (its part objects); `formatToParts` is kept for a shape the
 * runtime formats otherwise.
 */
export function localTime(epochMs: number, timeZone: string): LocalTime {
  const formatter = formatterFor(timeZone);
  const match = EN_US_WALL_CLOCK.exec(formatter.format(epochMs));
  if (match) {
    return {
      year: Number(match[3]),
      month: Number(match[1]),
      day: Number(match[2]),
      hour: Number(match[4]),
      minute: Number(match[5]),
      second: Number(match[6]),
    };
  }
  return localTimeFromParts(formatter, epochMs);
}

/** {@link localTime} through `formatToParts`, whatever the order and separators of the parts. */
export function localTimeFromParts(formatter: Intl.DateTimeFormat, epochMs: number): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(epochMs))) {
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

const MINUTE_MS = 60_000;

/** The calendar day of `epochMs` in `timeZone` as a UTC-midnight epoch, for comparing days. */
function localDay(epochMs: number, timeZone: string): number {
  const local = localTime(epochMs, timeZone);
  return Date.UTC(local.year, local.month - 1, local.day);
}

/**
 * UTC epoch of the start of a calendar date in `timeZone` (month 1-based): local midnight, or
 * where a zone's clocks jump over midnight (DST starting at 00:00, as in America/Santiago or
 * America/Havana), the first instant of the day, 01:00 local. Either is the day's "local
 * midnight converted to UTC" that products/getPricing's rule 1 asks for.
 * @example localMidnightUtc(2026, 9, 6, 'America/Santiago') // 2026-09-06T04:00:00Z (01:00 local)
 */
export function localMidnightUtc(
  year: number,
  month: number,
  day: number,
  timeZone: string,
): number {
  const wall = Date.UTC(year, month - 1, day);
  // Two passes settle the zone offset on ordinary days and on days whose change is not at midnight.
  let guess = wall;
  for (let pass = 0; pass < 2; pass += 1) {
    const local = localTime(guess, timeZone);
    const offset =
      Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) -
      guess;
    guess = wall - offset;
  }
  if (localDay(guess, timeZone) === wall && localDay(guess - 1000, timeZone) < wall) return guess;
  // Midnight did not exist (the guess fell in the day before, or after the day's start): the
  // day starts at the jump, on a whole minute within a few hours of the guess.
  let low = guess - 3 * 60 * MINUTE_MS;
  let high = guess + 3 * 60 * MINUTE_MS;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (localDay(middle, timeZone) < wall) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * True when `epochMs` is exactly the start of a calendar day in `timeZone` (see
 * {@link localMidnightUtc}; products/getPricing rule 1).
 */
export function isLocalMidnight(epochMs: number, timeZone: string): boolean {
  if (epochMs % 1000 !== 0) return false;
  const local = localTime(epochMs, timeZone);
  return epochMs === localMidnightUtc(local.year, local.month, local.day, timeZone);
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
