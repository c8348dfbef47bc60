import { describe, expect, it } from 'vitest';
import { sameToken, settingsDifferences } from '../../shared/connections/connection-add-again.ts';

const CHAIN = '4d0201db-6bb9-4c9d-8bd0-3a1a0e7d0b5f';

describe('settingsDifferences', () => {
  it('finds none between equal settings, whatever their key order', () => {
    expect(
      settingsDifferences(
        {
          entities: ['customer'],
          intervalMs: 60_000,
          portfolioScope: { chainIds: [CHAIN], enterpriseIds: [] },
        },
        {
          portfolioScope: { enterpriseIds: [], chainIds: [CHAIN] },
          intervalMs: 60_000,
          entities: ['customer'],
        },
      ),
    ).toEqual([]);
  });

  it('names each differing setting as an add takes it: a list in another order, one left out', () => {
    expect(
      settingsDifferences(
        { entities: ['customer', 'resource'], intervalMs: 60_000, initialSync: 'emit' },
        { entities: ['resource', 'customer'], exportIds: ['e'] },
      ),
    ).toEqual(['entities', 'interval', 'initialSync', 'exportIds']);
  });
});

describe('sameToken', () => {
  it('tells equal tokens from different ones of any length', () => {
    expect(sameToken('token-a', 'token-a')).toBe(true);
    expect(sameToken('token-a', 'token-b')).toBe(false);
    expect(sameToken('token', 'token-longer')).toBe(false);
    expect(sameToken('', 'x')).toBe(false);
  });
});
