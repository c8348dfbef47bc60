import { describe, expect, it } from 'vitest';
import { parseRequestFor } from '../../shared/connector/ignored-scope.ts';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { FIXTURE_IDS } from './fixtures.ts';

// connector-api.md #1: CustomerIds is "required if no other filter is given", and ChainIds is
// "required with Portfolio Access Tokens, ignored otherwise": the refusal of a body whose only
// filter is an ordinary token's ChainIds must not list ChainIds as a filter that would do.
describe('the CustomerIds requirement of customers/getAll', () => {
  const spec = OPERATIONS['customers/getAll'];
  const body = { Limitation: { Count: 10 }, Extent: {} };
  const refusal = (value: unknown, credential: 'ordinary' | 'portfolio-or-unknown') => {
    try {
      parseRequestFor(spec, value, credential, 'customers/getAll request');
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it.each([
    ['no filter, an ordinary token', body, 'ordinary'],
    ['only ChainIds, an ordinary token', { ...body, ChainIds: [FIXTURE_IDS.customer] }, 'ordinary'],
    ['no filter, a Portfolio Access Token', body, 'portfolio-or-unknown'],
  ] as const)(
    'with %s names CustomerIds and ChainIds as a filter only with a Portfolio Access Token',
    (_what, value, credential) => {
      const message = refusal(value, credential);
      expect(message).toContain('CustomerIds: required when no other filter');
      expect(message).toContain('ChainIds with a Portfolio Access Token');
    },
  );
});
