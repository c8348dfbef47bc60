import { describe, expect, it } from 'vitest';
import { CustomersGetAllResponseSchema } from '../../shared/connector/operations/customers-get-all.ts';
import { SAMPLE_CUSTOMER } from './fixtures.ts';

/**
 * connector-api.md, Resources and their fields: "`date-time` is an ISO 8601 timestamp in UTC."
 * `+00:00` is ISO 8601's other spelling of UTC (what .NET writes for a DateTimeOffset), but
 * DateTimeSchema (z.iso.datetime() without offsets) accepts only `Z`: the whole page is refused
 * as a contract break and the customer stream stalls on that window.
 */
describe('UTC timestamps written with a +00:00 offset', () => {
  it('a customer page whose UpdatedUtc ends in +00:00 is accepted', () => {
    const customer = {
      ...SAMPLE_CUSTOMER,
      CreatedUtc: '2026-03-10T09:00:00+00:00',
      UpdatedUtc: '2026-03-10T09:00:05.1234567+00:00',
    };
    const parsed = CustomersGetAllResponseSchema.safeParse({
      Customers: [customer],
      Documents: null,
      Cursor: customer.Id,
    });
    expect(parsed.success ? 'accepted' : parsed.error.issues[0]?.path.join('.')).toBe('accepted');
  });
});
