import { CustomersUpdateRequestSchema } from '../connector/operations/customers-update.ts';
import type { Address, Customer, IdentityDocument } from '../connector/records/index.ts';
import type { SimContext } from './context.ts';
import { requireChain } from './context.ts';
import { isBlank, nonBlank } from './handlers-guests.ts';
import { emailKey } from './model.ts';
import { SimApiError } from './query.ts';

const DOCUMENT_KINDS = ['Passport', 'IdentityCard', 'Visa', 'DriversLicense'] as const;
const SCALARS = [
  'Title',
  'FirstName',
  'LastName',
  'SecondLastName',
  'NationalityCode',
  'Sex',
  'BirthDate',
  'BirthPlace',
  'Occupation',
  'Phone',
  'LoyaltyCode',
  'CarRegistrationNumber',
  'DietaryRequirements',
  'TaxIdentificationNumber',
  'CompanyId',
] as const;

/**
 * customers/update (connector-api.md #2): rule 1, a left-out or blank field keeps the stored
 * value; rule 2, `Notes` replaces the old value; rule 3, an email already used by another
 * customer is a server-side validation error (403). A CustomerId or CompanyId that names
 * nothing is a client error (400) and changes nothing. Journaled as updated or touched.
 */
export function customersUpdate(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = CustomersUpdateRequestSchema.parse(raw);
  const model = ctx.model;
  const chainId = requireChain(ctx, body.ChainId, 'ChainId');
  const entry = model.customers.get(body.CustomerId);
  if (!entry || entry.chainId !== chainId)
    throw new SimApiError(400, 'CustomerId: no such customer');
  // An identifier that names nothing is a client error, as for CustomerId.
  if (!isBlank(body.CompanyId) && !model.hasCompany(body.CompanyId))
    throw new SimApiError(400, 'CompanyId: no such company');
  const current = entry.record;
  const patch: Partial<Customer> = {};
  for (const field of SCALARS) {
    const value = body[field];
    if (!isBlank(value)) Object.assign(patch, { [field]: value });
  }
  if (!isBlank(body.Email)) {
    const owner = model.emailOwners.get(emailKey(chainId, body.Email));
    if (owner && owner !== current.Id) {
      throw new SimApiError(403, 'Email: another customer profile already uses this email', {
        Field: 'Email',
      });
    }
    patch.Email = body.Email;
  }
  if (body.Notes !== undefined) patch.Notes = body.Notes;
  if (body.Classifications) patch.Classifications = body.Classifications;
  if (body.Options) patch.Options = body.Options;
  if (body.ItalianDestinationCode) patch.ItalianDestinationCode = body.ItalianDestinationCode.Value;
  if (body.ItalianFiscalCode) patch.ItalianFiscalCode = body.ItalianFiscalCode.Value;
  const address = nonBlank(body.Address);
  if (Object.keys(address).length > 0) {
    // A new address has every field of the contract, null until given (as seeded ones).
    const base: Address = current.Address ?? {
      Id: model.random.uuid(),
      Line1: null,
      Line2: null,
      City: null,
      PostalCode: null,
      CountryCode: null,
      CountrySubdivisionCode: null,
      Latitude: null,
      Longitude: null,
    };
    patch.Address = { ...base, ...address };
    patch.AddressId = patch.Address.Id;
  }
  for (const kind of DOCUMENT_KINDS) {
    const fields = nonBlank(body[kind]);
    if (Object.keys(fields).length === 0) continue;
    // A new document has every nullable field of the contract, null until given (as seeded ones).
    const base: IdentityDocument = current[kind] ?? {
      Id: model.random.uuid(),
      CustomerId: current.Id,
      Type: kind,
      Number: null,
      Expiration: null,
      Issuance: null,
      IssuingCountryCode: null,
      IssuingCity: null,
      IdentityDocumentSupportNumber: null,
    };
    patch[kind] = { ...base, ...fields };
  }
  // Writes through the API are made by the integration profile.
  patch.UpdaterProfileId = model.world.profileIds[0]!;
  model.update(model.customers, 'customer', current.Id, patch);
  if (patch.Email && patch.Email !== current.Email) {
    if (current.Email) model.emailOwners.delete(emailKey(chainId, current.Email));
    model.emailOwners.set(emailKey(chainId, patch.Email), current.Id);
  }
  return model.customers.get(current.Id)!.record;
}
