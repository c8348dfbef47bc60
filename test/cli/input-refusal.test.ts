import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answeredRefusalText,
  flagValidationText,
  inputRefusalText,
  refusalText,
} from '../../shared/cli/admin/input-refusal.ts';
import { parsePortfolioScope } from '../../shared/connector/connector-config.ts';
import { ValidationError } from '../../shared/errors.ts';

describe('refusalText', () => {
  const flags = { initialSync: '--initial-sync', events: '--events', productIds: '--product-ids' };

  it('names the flag of a field once, without the field', () => {
    expect(refusalText('initialSync', 'must be baseline or emit', flags)).toBe(
      '--initial-sync: must be baseline or emit',
    );
  });

  it('names the refused item of a list flag, from the list or the comma-separated text given', () => {
    const message = 'must be an event type';
    expect(refusalText('events[1]', message, flags, { events: 'customer.*, nope' })).toBe(
      '--events: nope: must be an event type',
    );
    expect(refusalText('events[0]', message, flags, { events: ['nope'] })).toBe(
      '--events: nope: must be an event type',
    );
    expect(refusalText('events[2]', message, flags)).toBe(
      '--events: item 3: must be an event type',
    );
  });

  it('does not repeat an item the message starts with, and cuts a long one', () => {
    const given = { productIds: ['nope'] };
    expect(refusalText('productIds[0]', 'nope: must be a uuid', flags, given)).toBe(
      '--product-ids: nope: must be a uuid',
    );
    const long = 'x'.repeat(100);
    expect(refusalText('events[0]', 'is refused', flags, { events: [long] })).toBe(
      `--events: ${'x'.repeat(39)}…: is refused`,
    );
  });

  it('leaves out a deeper path, and names a field no flag sets as the API does', () => {
    const scope = { portfolioScope: '--portfolio-scope' };
    expect(refusalText('portfolioScope.chainIds', 'needs a chain', scope)).toBe(
      '--portfolio-scope: needs a chain',
    );
    expect(refusalText('id', 'must not be empty', flags)).toBe('id: must not be empty');
    expect(refusalText('toString', 'is refused', flags)).toBe('toString: is refused');
  });
});

describe('inputRefusalText', () => {
  it('says the first refusal of a body in plain words, led by its flag', () => {
    const schema = z.object({ id: z.string(), initialSync: z.enum(['baseline', 'emit']) });
    const body = { id: 'h1', initialSync: 'foo' };
    const error = schema.safeParse(body).error!;
    expect(inputRefusalText(error, 'body', { initialSync: '--initial-sync' }, body)).toBe(
      '--initial-sync: must be baseline or emit',
    );
  });
});

describe('answeredRefusalText', () => {
  it('names the flag once, leaving out what led the field in the answer', () => {
    expect(
      answeredRefusalText(
        'backfill is invalid: connections[0]: other is no enabled connection',
        'connections[0]',
        { connections: '--connection' },
        { connections: 'other' },
      ),
    ).toBe('--connection: other is no enabled connection');
    expect(answeredRefusalText('url: host x does not resolve', 'url', { url: '--url' })).toBe(
      '--url: host x does not resolve',
    );
    expect(answeredRefusalText('does not take this event', 'subscriptionId')).toBe(
      'subscriptionId: does not take this event',
    );
  });
});

describe('flagValidationText', () => {
  it('names the flag once, then each entry it refuses', () => {
    const error = (() => {
      try {
        parsePortfolioScope('x:1,bogus', '--portfolio-scope');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(flagValidationText('--portfolio-scope', error as ValidationError)).toBe(
      '--portfolio-scope: x:1: needs the chain:<uuid> or enterprise:<uuid> prefix; bogus: needs the chain:<uuid> or enterprise:<uuid> prefix',
    );
  });
});
