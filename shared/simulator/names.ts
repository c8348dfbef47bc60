/** First names, with diacritics and non-Latin scripts on purpose. */
export const FIRST_NAMES = [
  'Anna',
  'Jiří',
  'Zoë',
  'Łukasz',
  'Søren',
  'José',
  'Chloé',
  'Björn',
  'Ewa',
  'Mateo',
  'Noémie',
  'Ömer',
  'Ilse',
  'Şebnem',
  'Maša',
  'Дмитрий',
  '陽菜',
  'Oliver',
  'Amélie',
  'Tomáš',
  'Siobhán',
  'Håkon',
  'Lucía',
  'Emma',
  'Jan',
  'Petra',
  'Kateřina',
  'Ahmed',
  'Yuki',
  'Liam',
] as const;

/** Last names, with diacritics and non-Latin scripts on purpose. */
export const LAST_NAMES = [
  'Novák',
  'Müller',
  'Ødegaard',
  'García',
  'Dvořák',
  'Smith',
  "O'Brien",
  'Kowalski',
  'Tanaka',
  'Şahin',
  'Svoboda',
  'Jensen',
  'Rossi',
  'Dubois',
  'Nowak',
  'Schmidt',
  'Иванова',
  '佐藤',
  'Černý',
  'Fernández',
  'Lindqvist',
  'Horváth',
  'Nguyễn',
  'Walsh',
  'Procházka',
  'Weber',
] as const;

/** Plain ASCII spelling of a name for e-mail addresses. */
export function asciiSlug(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
  return slug.length > 0 ? slug : 'guest';
}

/** Cities with country, subdivision, postal code and position. */
export const CITIES = [
  { city: 'Praha', country: 'CZ', subdivision: 'CZ-10', postal: '110 00', lat: 50.08, lon: 14.42 },
  { city: 'Brno', country: 'CZ', subdivision: 'CZ-64', postal: '602 00', lat: 49.19, lon: 16.61 },
  { city: 'München', country: 'DE', subdivision: 'DE-BY', postal: '80331', lat: 48.14, lon: 11.58 },
  {
    city: 'Stuttgart',
    country: 'DE',
    subdivision: 'DE-BW',
    postal: '70173',
    lat: 48.78,
    lon: 9.18,
  },
  {
    city: 'London',
    country: 'GB',
    subdivision: 'GB-LND',
    postal: 'EC1A 1BB',
    lat: 51.51,
    lon: -0.1,
  },
  { city: 'Kraków', country: 'PL', subdivision: 'PL-12', postal: '31-001', lat: 50.06, lon: 19.94 },
  { city: 'Wien', country: 'AT', subdivision: 'AT-9', postal: '1010', lat: 48.21, lon: 16.37 },
  { city: 'Sevilla', country: 'ES', subdivision: 'ES-SE', postal: '41001', lat: 37.39, lon: -5.98 },
  { city: 'Malmö', country: 'SE', subdivision: 'SE-M', postal: '211 20', lat: 55.6, lon: 13.0 },
  {
    city: '東京',
    country: 'JP',
    subdivision: 'JP-13',
    postal: '100-0001',
    lat: 35.68,
    lon: 139.76,
  },
] as const;

/** Street names for address lines. */
export const STREETS = [
  'Karlova',
  'Hauptstraße',
  'High Street',
  'Calle Mayor',
  'Ulica Floriańska',
  'Storgatan',
  'Na Příkopě',
  'Ringstraße',
  'Baker Street',
  'Rue de Rivoli',
] as const;

/** Language-culture codes. */
export const LANGUAGES = [
  'en-US',
  'cs-CZ',
  'de-DE',
  'en-GB',
  'pl-PL',
  'es-ES',
  'sv-SE',
  'ja-JP',
] as const;

/** Occupations. */
export const OCCUPATIONS = [
  'Engineer',
  'Teacher',
  'Architect',
  'Nurse',
  'Chef',
  'Designer',
  'Lawyer',
] as const;

/** Note texts for account notes. */
export const NOTE_TEXTS = [
  'Prefers a quiet room away from the lift.',
  'Allergic to nuts — inform the kitchen.',
  'Celebrating an anniversary; champagne on arrival.',
  'Late arrival expected, keep the room.',
  'Invoice to the company address, not the personal one.',
  'Complained about noise during the last stay.',
  'Vegetarian breakfast, oat milk please.',
  'Bringing a small dog (Bára), pet fee agreed.',
] as const;

/** Reservation group names; may repeat, may be empty (connector-api.md). */
export const GROUP_NAMES = [
  'Smith wedding',
  'Tech Summit 2026',
  'Choir tour',
  '',
  'Family reunion',
  'Školní výlet',
] as const;
