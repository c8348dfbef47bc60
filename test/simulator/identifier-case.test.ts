import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { lowercaseGuids } from '../../shared/simulator/canonical-ids.ts';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// connector-api.md: "`uuid` is a string in UUID format". The service reads a GUID whatever the
// case of its hex digits (`6F8B…` names the record `6f8b…`), as .NET parses one; ids written
// upper case elsewhere (SQL Server prints them so) must find the same records.
describe('identifiers in upper case', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function ask(operation: string, body: Record<string, unknown>) {
    const answer = await postRaw(h.sim, operation, { ...envelope(h.sim), ...body });
    return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
  }

  const CASES: [string, string, (h: Harness) => Record<string, unknown>][] = [
    [
      'a CustomerIds filter',
      'customers/getAll',
      (h) => ({
        Limitation: { Count: 10 },
        Extent: { Customers: true },
        CustomerIds: [[...h.sim.controls.model.customers.all()][3]!.record.Id],
      }),
    ],
    [
      'a Limitation.Cursor',
      'paymentRequests/getAll',
      (h) => ({
        Limitation: {
          Count: 5,
          Cursor: [...h.sim.controls.model.paymentRequests.all()].at(-10)!.record.Id,
        },
      }),
    ],
    [
      'an EnterpriseIds filter',
      'resources/getAll',
      (h) => ({
        Limitation: { Count: 5 },
        Extent: { Resources: true },
        EnterpriseIds: [h.sim.controls.model.world.enterprises[0]!.Id],
      }),
    ],
    [
      'an AccountIds filter',
      'accountNotes/getAll',
      (h) => ({
        Limitation: { Count: 5 },
        AccountIds: [[...h.sim.controls.model.accountNotes.all()][0]!.record.AccountId],
      }),
    ],
    [
      'a CustomerId to update',
      'customers/update',
      (h) => ({
        CustomerId: [...h.sim.controls.model.customers.all()][5]!.record.Id,
        Occupation: 'Pilot',
      }),
    ],
  ];

  for (const [what, operation, body] of CASES) {
    it(`${operation}: ${what} in upper case answers as in lower case`, async () => {
      const lower = body(h);
      const expected = await ask(operation, lower);
      expect(expected.status, JSON.stringify(expected.body)).toBe(200);
      const upper = JSON.parse(
        JSON.stringify(lower).replace(
          /"([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})"/g,
          (quoted) => quoted.toUpperCase(),
        ),
      ) as Record<string, unknown>;
      expect(upper).not.toEqual(lower);
      const answer = await ask(operation, upper);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { UpdatedUtc: _a, ...expectedRest } = expected.body;
      const { UpdatedUtc: _b, ...answerRest } = answer.body;
      expect(answerRest).toEqual(expectedRest);
    });
  }

  it('leaves free text and the envelope as they are, even when they look like a GUID', () => {
    const guid = '6F8B1C84-61B5-4B52-9C29-6A4D3C0E1F11';
    const body = {
      ClientToken: guid,
      CustomerId: guid,
      Notes: guid,
      Passport: { Number: guid },
      Classifications: ['Important'],
    };
    expect(lowercaseGuids(OPERATIONS['customers/update'].request, body)).toEqual({
      ...body,
      CustomerId: guid.toLowerCase(),
    });
  });
});
