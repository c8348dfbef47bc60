/**
 * A `customer.updated` change event of about 2 KB (the size the cost estimate assumes),
 * shaped like the catalogue's, with the given number as its id.
 */
export function sampleCustomerEvent(n: number): Record<string, unknown> {
  const id = `c${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
  const customer = (email: string) => ({
    Id: id,
    ChainId: '11111111-1111-4111-8111-111111111111',
    FirstName: 'Alexandra',
    LastName: 'Novakova',
    Email: email,
    Phone: '+420 601 234 567',
    NationalityCode: 'CZ',
    LanguageCode: 'cs-CZ',
    BirthDate: '1986-04-12',
    Classifications: ['Returning', 'LoyaltyProgram'],
    Notes: 'Prefers a quiet room on a high floor; allergic to feathers. '.repeat(4),
    Address: {
      Line1: 'Vodickova 704/36',
      Line2: null,
      City: 'Praha',
      PostalCode: '110 00',
      CountryCode: 'CZ',
    },
    CreatedUtc: '2025-05-01T10:00:00Z',
    UpdatedUtc: '2026-03-10T09:00:00Z',
  });
  return {
    specversion: '1.0',
    id: `evt_${String(n).padStart(26, '0')}`,
    type: 'customer.updated',
    source: 'connector/main',
    subject: id,
    time: '2026-03-10T09:00:01.000Z',
    datacontenttype: 'application/json',
    data: {
      entityType: 'customer',
      entityId: id,
      change: 'updated',
      scope: {
        enterpriseId: '22222222-2222-4222-8222-222222222222',
        chainId: '11111111-1111-4111-8111-111111111111',
      },
      current: customer('alexandra.novakova@example.com'),
      previous: customer('a.novakova@example.com'),
      changedFields: ['Email'],
      patch: [{ op: 'replace', path: '/Email', value: 'alexandra.novakova@example.com' }],
    },
  };
}

/** The envelope an EventBridge rule puts on the dispatch queue around `event`. */
export function eventBridgeEnvelope(event: Record<string, unknown>): string {
  return JSON.stringify({
    version: '0',
    id: `eb-${String(event.id)}`,
    'detail-type': String(event.type),
    source: 'change-bridge',
    account: '000000000000',
    time: '2026-03-10T09:00:01Z',
    region: 'us-east-1',
    resources: [],
    detail: event,
  });
}
