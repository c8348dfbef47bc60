import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { withTaxationsAndRates } from '../../shared/polling/specs/tax-environment.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 41);
});
afterAll(async () => {
  await harness?.close();
});

/**
 * connector-api.md, Tax environment: the response of taxEnvironments/getAll carries taxations
 * and tax rates besides the environments (the simulator lists them beside `TaxEnvironments`). A
 * rate that changes changes the environments whose `TaxationCodes` use its taxation.
 */
describe('tax environments', () => {
  it('are updated when a tax rate of a taxation they use changes, and only those', async () => {
    const { definition, deps } = harness.streamOf('taxEnvironment');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const model = harness.sim.controls.model;
    const rate = model.taxRates.find((r) => r.TaxationCode === 'AT-VAT')!;
    rate.Strategy = { Discriminator: 'Relative', Value: 0.13 };
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const events = harness.publisher.events;
    expect(events.map((e) => `${e.type} ${e.subject}`)).toEqual(['taxEnvironment.updated AT']);
    expect(events[0]!.data.changedFields).toEqual(['TaxRates']);
    const current = events[0]!.data.current as { TaxRates: { Code: string }[] };
    expect(current.TaxRates.map((r) => r.Code)).toEqual(['AT-VAT-S', 'AT-CT-S']);
    expect(current.TaxRates[0]).toMatchObject({ Strategy: { Value: 0.13 } });
  });

  it('are updated when a taxation they use changes, and quiet once it has been published', async () => {
    const { definition, deps } = harness.streamOf('taxEnvironment');
    const model = harness.sim.controls.model;
    const taxation = model.taxations.find((t) => t.Code === 'DE-VAT')!;
    taxation.Name = 'Umsatzsteuer';
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`).sort()).toEqual([
      'taxEnvironment.updated DE',
      'taxEnvironment.updated DE-2020',
    ]);
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events).toEqual([]);
  });
});

describe('withTaxationsAndRates', () => {
  it('keeps a list an environment carries itself and gives items naming no environment to none', () => {
    const own = [{ Code: 'AT-S', TaxationCode: 'AT' }];
    const folded = withTaxationsAndRates(
      [
        { Code: 'AT-2020', TaxationCodes: ['AT'], TaxRates: own },
        { Code: 'CZ', TaxationCodes: ['CZ-VAT'] },
      ],
      {
        TaxEnvironments: [],
        Taxations: [{ Code: 'CZ-VAT' }, { Code: 'XX' }],
        TaxRates: [
          { Code: 'CZ-S', TaxationCode: 'CZ-VAT' },
          { Code: 'XX-S', TaxationCode: 'XX' },
        ],
      },
    );
    expect(folded).toEqual([
      { Code: 'AT-2020', TaxationCodes: ['AT'], TaxRates: own, Taxations: [] },
      {
        Code: 'CZ',
        TaxationCodes: ['CZ-VAT'],
        Taxations: [{ Code: 'CZ-VAT' }],
        TaxRates: [{ Code: 'CZ-S', TaxationCode: 'CZ-VAT' }],
      },
    ]);
  });
});
