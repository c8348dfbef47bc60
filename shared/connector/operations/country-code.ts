import { z } from 'zod';

/**
 * The 249 officially assigned ISO 3166-1 alpha-2 country codes, grouped by first letter.
 * Reserved, withdrawn and user-assigned codes (UK, EU, XK, ...) are not among them.
 */
const ISO_3166_1_ALPHA_2 = new Set(
  [
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ',
    'BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ',
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ',
    'DE DJ DK DM DO DZ',
    'EC EE EG EH ER ES ET',
    'FI FJ FK FM FO FR',
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY',
    'HK HM HN HR HT HU',
    'ID IE IL IM IN IO IQ IR IS IT',
    'JE JM JO JP',
    'KE KG KH KI KM KN KP KR KW KY KZ',
    'LA LB LC LI LK LR LS LT LU LV LY',
    'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ',
    'NA NC NE NF NG NI NL NO NP NR NU NZ',
    'OM',
    'PA PE PF PG PH PK PL PM PN PR PS PT PW PY',
    'QA',
    'RE RO RS RU RW',
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ',
    'TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ',
    'UA UG UM US UY UZ',
    'VA VC VE VG VI VN VU',
    'WF WS',
    'YE YT',
    'ZA ZM ZW',
  ].flatMap((group) => group.split(' ')),
);

/** True for an officially assigned ISO 3166-1 alpha-2 code (upper case, `CZ`). */
export function isCountryCode(value: string): boolean {
  return ISO_3166_1_ALPHA_2.has(value);
}

/**
 * A country code in a request: ISO 3166-1 (connector-api.md, Customer and Address) in its
 * alpha-2 form, the form the service's customer records carry (`CZ`). Blank text passes,
 * because customers/update rule 1 reads it as "left out". Only for requests: records a
 * server sends keep their plain text schema, so an unexpected form never stops a stream.
 * @example CountryCodeRequestSchema.parse('CZ') // 'CZ'
 */
export const CountryCodeRequestSchema = z
  .string()
  .refine(
    (value) => value.trim() === '' || isCountryCode(value),
    'must be an ISO 3166-1 alpha-2 country code such as CZ',
  );
/** A country code in a request. */
export type CountryCodeRequest = z.infer<typeof CountryCodeRequestSchema>;
