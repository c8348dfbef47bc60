import { z } from 'zod';

/**
 * A Connector API identifier: 8-4-4-4-12 hexadecimal digits.
 * Deliberately not RFC 9562 strict (`z.uuid()`): the service issues .NET GUIDs whose
 * version and variant bits are not promised, and one odd id must not stop a stream.
 */
export const UuidSchema = z.guid();
/** A Connector API identifier. */
export type Uuid = z.infer<typeof UuidSchema>;

/**
 * An ISO 8601 timestamp in UTC: `Z`, or an offset such as `+00:00` (ISO 8601's other spelling,
 * what .NET writes for a DateTimeOffset; one record so written must not stop a stream); any
 * fraction of a second, .NET sends up to 7 digits. Compared as instants (Date.parse), never as
 * text.
 */
export const DateTimeSchema = z.iso.datetime({ offset: true });
/** An ISO 8601 UTC timestamp string. */
export type DateTime = z.infer<typeof DateTimeSchema>;

/** An ISO 8601 calendar date (`2024-05-31`). */
export const DateSchema = z.iso.date();
/** An ISO 8601 date string. */
export type DateOnly = z.infer<typeof DateSchema>;

/** An ISO-4217 currency code (`EUR`). */
export const CurrencyCodeSchema = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO-4217 code');
/** An ISO-4217 currency code. */
export type CurrencyCode = z.infer<typeof CurrencyCodeSchema>;

/** Texts keyed by language-culture code of the form `xx-XX` (`en-US`); may be empty. */
export const LocalizedTextSchema = z.record(
  z.string().regex(/^[a-z]{2}-[A-Z]{2}$/, 'must be a language-culture code like en-US'),
  z.string(),
);
/** Texts keyed by language-culture code. */
export type LocalizedText = z.infer<typeof LocalizedTextSchema>;

/** The longest `UpdatedUtc`, `CreatedUtc` or `DeletedUtc` interval the service accepts. */
export const TIME_FILTER_MAX_MONTHS = 3;

/**
 * Adds calendar months in UTC, clamping to the last day of the target month
 * (30 November + 3 months is 28 or 29 February, never 2 March).
 * @example addUtcMonths(Date.parse('2024-11-30T00:00:00Z'), 3) // 2025-02-28T00:00:00Z
 */
export function addUtcMonths(epochMs: number, months: number): number {
  const start = new Date(epochMs);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + months;
  // Day 0 of the next month is the last day of the target month.
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(start.getUTCDate(), lastDay),
    start.getUTCHours(),
    start.getUTCMinutes(),
    start.getUTCSeconds(),
    start.getUTCMilliseconds(),
  );
}

/** The digits of a date-time's fraction of a second past the millisecond (`.0000001` → `0001`). */
const SUB_MILLISECOND_DIGITS = /T\d{2}:\d{2}:\d{2}\.\d{3}(\d+)/;

/**
 * The part of a millisecond an ISO 8601 date-time names past its whole milliseconds, in [0, 1):
 * .NET writes seven digits of a second, and Date.parse drops those past the millisecond. Pure.
 */
function subMillisecond(iso: string): number {
  const digits = SUB_MILLISECOND_DIGITS.exec(iso)?.[1];
  return digits === undefined ? 0 : Number(`0.${digits}`);
}

/** True when the instant `aMs` + `aSub` is not after `bMs` + `bSub` (ms and part of a ms). Pure. */
function isNotAfter(aMs: number, aSub: number, bMs: number, bSub: number): boolean {
  return aMs < bMs || (aMs === bMs && aSub <= bSub);
}

/**
 * True when `startIso <= endIso` and the interval spans at most `months` calendar months,
 * compared to the last digit of a second (a bound 100 ns past a millisecond counts).
 * Unparseable timestamps give false.
 * @example isWithinMonths('2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 24) // true
 */
export function isWithinMonths(startIso: string, endIso: string, months: number): boolean {
  const start = Date.parse(startIso);
  const end = Date.parse(endIso);
  if (Number.isNaN(start) || Number.isNaN(end)) return false;
  const [startSub, endSub] = [subMillisecond(startIso), subMillisecond(endIso)];
  return (
    isNotAfter(start, startSub, end, endSub) &&
    isNotAfter(end, endSub, addUtcMonths(start, months), startSub)
  );
}

/**
 * True when the instant `startIso` is after `endIso`, to the last digit of a second;
 * false when either is unparseable. Pure.
 * @example isInstantAfter('2024-01-01T00:00:00.0000002Z', '2024-01-01T00:00:00.0000001Z') // true
 */
export function isInstantAfter(startIso: string, endIso: string): boolean {
  const start = Date.parse(startIso);
  const end = Date.parse(endIso);
  if (Number.isNaN(start) || Number.isNaN(end)) return false;
  return !isNotAfter(start, subMillisecond(startIso), end, subMillisecond(endIso));
}

/**
 * True when `startIso <= endIso` and the interval is at most {@link TIME_FILTER_MAX_MONTHS}
 * calendar months long. Intervals are half-open (`StartUtc <= t < EndUtc`, design.md), so an
 * interval of exactly three months is allowed.
 * @example isWithinThreeMonths('2024-01-01T00:00:00Z', '2024-04-01T00:00:00Z') // true
 */
export function isWithinThreeMonths(startIso: string, endIso: string): boolean {
  return isWithinMonths(startIso, endIso, TIME_FILTER_MAX_MONTHS);
}

/**
 * A request time filter. When both ends are set, StartUtc must not be after EndUtc and the
 * interval must be at most 3 calendar months long (a longer one is a 400 from the service).
 * Issues name `EndUtc`.
 */
export const TimeFilterIntervalSchema = z
  .strictObject({
    StartUtc: DateTimeSchema.nullable().optional(),
    EndUtc: DateTimeSchema.nullable().optional(),
  })
  .superRefine((interval, ctx) => {
    const { StartUtc: start, EndUtc: end } = interval;
    if (start == null || end == null) return;
    if (isInstantAfter(start, end)) {
      ctx.addIssue({ code: 'custom', path: ['EndUtc'], message: 'must not be before StartUtc' });
    } else if (!isWithinThreeMonths(start, end)) {
      ctx.addIssue({
        code: 'custom',
        path: ['EndUtc'],
        message: `interval must be at most ${TIME_FILTER_MAX_MONTHS} months long`,
      });
    }
  });
/** A request time filter. */
export type TimeFilterInterval = z.infer<typeof TimeFilterIntervalSchema>;

/** The most items one page may hold (`Limitation.Count`). */
export const LIMITATION_MAX_COUNT = 1000;

/** Page request of paginated operations: `Count` 1..1000 and the optional `Cursor`. */
export const LimitationSchema = z.strictObject({
  Count: z.number().int().min(1).max(LIMITATION_MAX_COUNT),
  Cursor: UuidSchema.nullable().optional(),
});
/** Page request of paginated operations. */
export type Limitation = z.infer<typeof LimitationSchema>;

/** One tax amount of an {@link Amount}. */
export const TaxValueSchema = z.looseObject({
  Code: z.string().nullable().optional(),
  Value: z.number(),
});
/** One tax amount. */
export type TaxValue = z.infer<typeof TaxValueSchema>;

/** One line of an amount's tax breakdown; `TaxRateCode` is null for untaxed amounts. */
export const TaxBreakdownItemSchema = z.looseObject({
  TaxRateCode: z.string().nullable().optional(),
  NetValue: z.number(),
  TaxValue: z.number(),
});
/** One line of a tax breakdown. */
export type TaxBreakdownItem = z.infer<typeof TaxBreakdownItemSchema>;

/** A monetary value in responses, with taxes and their breakdown. */
export const AmountSchema = z.looseObject({
  Currency: CurrencyCodeSchema,
  NetValue: z.number(),
  GrossValue: z.number(),
  TaxValues: z.array(TaxValueSchema),
  Breakdown: z.looseObject({ Items: z.array(TaxBreakdownItemSchema) }),
});
/** A monetary value in responses. */
export type Amount = z.infer<typeof AmountSchema>;

/** Kinds of profile that create or update records. */
export const ProfileDiscriminatorSchema = z.enum([
  'Personal',
  'Enterprise',
  'Platform',
  'Static',
  'Integration',
]);
/** Kind of profile. */
export type ProfileDiscriminator = z.infer<typeof ProfileDiscriminatorSchema>;

/** Who created or updated a record; `EnterpriseProfile` is null for integrations. */
export const ProfileDataSchema = z.looseObject({
  Discriminator: ProfileDiscriminatorSchema,
  EnterpriseProfile: z.looseObject({ ProfileId: UuidSchema }).nullable().optional(),
});
/** Who created or updated a record. */
export type ProfileData = z.infer<typeof ProfileDataSchema>;

/** Activity state filter values. */
export const ActivityStateSchema = z.enum(['Active', 'Deleted']);
/** Activity state filter value. */
export type ActivityState = z.infer<typeof ActivityStateSchema>;

/** The credentials every request body carries (connector-api.md, Common request envelope). */
export const EnvelopeSchema = z.strictObject({
  ClientToken: z.string().min(1),
  AccessToken: z.string().min(1),
  Client: z.string().min(1),
});
/** The credentials every request body carries. */
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** Body of an unsuccessful call (`ConnectorApiExceptionResult`); `Details` has no stated shape. */
export const ConnectorErrorBodySchema = z.looseObject({
  Message: z.string().nullable().optional(),
  RequestId: z.string().nullable().optional(),
  Details: z.unknown().nullable().optional(),
});
/** Body of an unsuccessful call. */
export type ConnectorErrorBody = z.infer<typeof ConnectorErrorBodySchema>;

/** A `{ Value }` wrapper the update operations use for one field's new value. */
export function updateValue<T extends z.ZodType>(value: T) {
  return z.strictObject({ Value: value });
}
