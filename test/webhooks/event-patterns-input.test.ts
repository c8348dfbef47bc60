import { describe, expect, it } from 'vitest';
import { EventPatternListSchema } from '../../shared/admin/schemas.ts';
import { EventPatternsInputSchema } from '../../shared/webhooks/subscription.ts';
import {
  CreateSubscriptionInputSchema,
  UpdateSubscriptionInputSchema,
} from '../../shared/webhooks/subscription-admin.ts';

const url = 'https://hooks.example.com/in';

describe('event patterns a user gives a subscription', () => {
  it('keeps each pattern once, in the order first given', () => {
    expect(
      EventPatternsInputSchema.parse([
        'resource.*',
        'customer.updated',
        'resource.*',
        'customer.updated',
      ]),
    ).toEqual(['resource.*', 'customer.updated']);
  });

  it('says what to give for none or too many', () => {
    expect(EventPatternListSchema.safeParse('').error?.issues[0]?.message).toBe(
      'give at least one pattern such as customer.* or resource.updated',
    );
    const many = Array.from({ length: 101 }, () => 'customer.updated');
    expect(EventPatternsInputSchema.safeParse(many).error?.issues[0]?.message).toBe(
      'give at most 100 patterns',
    );
  });

  it('keeps each pattern once in comma-separated text, on create and on update', () => {
    expect(EventPatternListSchema.parse('customer.updated,customer.updated')).toEqual([
      'customer.updated',
    ]);
    expect(
      CreateSubscriptionInputSchema.parse({ url, events: ['customer.*', 'customer.*'] }).events,
    ).toEqual(['customer.*']);
    expect(UpdateSubscriptionInputSchema.parse({ events: ['*', '*'] }).events).toEqual(['*']);
  });
});
