import { describe, expect, it } from 'vitest';
import { parsePortfolioScope } from '../../shared/connector/connector-config.ts';
import { UuidSchema } from '../../shared/connector/records/common.ts';

/**
 * connector-api.md: "`uuid` is a string in UUID format." records/common.ts accepts any
 * 8-4-4-4-12 GUID because "the service issues .NET GUIDs whose version and variant bits are not
 * promised", but the Portfolio Access Token scope (chain:<id>, enterprise:<id>) is parsed with
 * RFC-strict z.uuid(): a chain whose id the connector returns in every record cannot be
 * configured, so customers (ChainIds required with such a token) cannot be polled for it.
 */
describe('Portfolio scope ids', () => {
  it('accepts a chain id the record schemas accept', () => {
    const chainId = 'a1b2c3d4-e5f6-0789-0abc-def012345678';
    expect(UuidSchema.safeParse(chainId).success).toBe(true);
    expect(() => parsePortfolioScope(`chain:${chainId}`)).not.toThrow();
  });
});
