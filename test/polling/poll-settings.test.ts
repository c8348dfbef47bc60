import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';

const NOW = Date.parse('2026-12-02T03:00:00Z');

describe('POLL_HISTORY_START', () => {
  it('takes an ISO date-time or a duration back from now', () => {
    const at = (value: string) =>
      pollSettingsFromEnv({ POLL_HISTORY_START: value }, NOW).windows.historyStartMs;
    expect(at('2021-01-01T00:00:00Z')).toBe(Date.parse('2021-01-01T00:00:00Z'));
    expect(at('400d')).toBe(NOW - 400 * 86_400_000);
    expect(at('2026-12-02T03:00:00Z')).toBe(NOW);
  });

  it('refuses a time in the future, which would leave every first sync waiting until then', () => {
    // Before, a stream's first sync read nothing (its window starts after its end) and stayed
    // in `first sync` with no request, no event and no error until that time came.
    expect(() => pollSettingsFromEnv({ POLL_HISTORY_START: '2030-01-01' }, NOW)).toThrow(
      ValidationError,
    );
    expect(() => pollSettingsFromEnv({ POLL_HISTORY_START: '2030-01-01' }, NOW)).toThrow(
      /POLL_HISTORY_START: must not be in the future/,
    );
  });
});

describe('CONNECTOR_BUDGET_MARGIN', () => {
  it('takes a margin up to 30s and refuses a longer one, naming the variable', () => {
    expect(pollSettingsFromEnv({}, NOW).budgetMarginMs).toBe(500);
    expect(pollSettingsFromEnv({ CONNECTOR_BUDGET_MARGIN: '30s' }, NOW).budgetMarginMs).toBe(
      30_000,
    );
    // A day would space the token's 200 requests over a day: polling all but stopped.
    expect(() => pollSettingsFromEnv({ CONNECTOR_BUDGET_MARGIN: '1d' }, NOW)).toThrow(
      /CONNECTOR_BUDGET_MARGIN: must be at most 30s/,
    );
  });
});

describe('POLL_PRICE_HORIZON_DAYS', () => {
  const horizonOf = (env: Record<string, string>) =>
    streamDefinitions('h1', { ...pollSettingsFromEnv(env, NOW), entities: ['productPrice'] })[0]
      ?.priceHorizonDays;

  it("sets the productPrice streams' horizon; left unset, the strategy's default applies", () => {
    expect(horizonOf({ POLL_PRICE_HORIZON_DAYS: '7' })).toBe(7);
    expect(horizonOf({ POLL_PRICE_HORIZON_DAYS: '100' })).toBe(100);
    expect(horizonOf({})).toBeUndefined();
  });

  it('refuses what products/getPricing would refuse, naming the variable', () => {
    // The operation spans at most 100 day units: a longer horizon fails every price poll.
    expect(() => pollSettingsFromEnv({ POLL_PRICE_HORIZON_DAYS: '101' }, NOW)).toThrow(
      /POLL_PRICE_HORIZON_DAYS: must be at most 100/,
    );
    expect(() => pollSettingsFromEnv({ POLL_PRICE_HORIZON_DAYS: '0' }, NOW)).toThrow(
      /POLL_PRICE_HORIZON_DAYS: must be at least 1/,
    );
    expect(() => pollSettingsFromEnv({ POLL_PRICE_HORIZON_DAYS: '1.5' }, NOW)).toThrow(
      /POLL_PRICE_HORIZON_DAYS: must be a whole number in decimal digits/,
    );
    expect(() => pollSettingsFromEnv({ POLL_PRICE_HORIZON_DAYS: 'month' }, NOW)).toThrow(
      /POLL_PRICE_HORIZON_DAYS: must be a whole number in decimal digits/,
    );
    // Set but empty is a mistake, as for the other POLL_* variables, and says what it needs.
    expect(() => pollSettingsFromEnv({ POLL_PRICE_HORIZON_DAYS: '' }, NOW)).toThrow(
      /POLL_PRICE_HORIZON_DAYS: must be a whole number in decimal digits/,
    );
  });
});
