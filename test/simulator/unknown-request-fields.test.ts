import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  type Harness,
  interval,
  postRaw,
  startHarness,
  TEST_START_MS,
} from './harness.ts';

const DAY_MS = 86_400_000;
const EVERY_DAY = {
  Monday: true,
  Tuesday: true,
  Wednesday: true,
  Thursday: true,
  Friday: true,
  Saturday: true,
  Sunday: true,
};

/**
 * The contract names no rule refusing a field it does not list, and lists some request fields
 * without their names (restrictions/clear's rate group and resource category type): the
 * simulator reads a request as if such fields were not there, at any depth.
 */
describe('request fields the contract does not name', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const ask = async (operation: string, body: Record<string, unknown>) => {
    const answer = await postRaw(h.sim, operation, { ...envelope(h.sim), ...body });
    return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
  };

  it('are ignored at the top level: the answer is the one without them', async () => {
    const plain = await ask('taxEnvironments/getAll', {});
    expect(await ask('taxEnvironments/getAll', { Extra: 1, Nested: { Deep: [1] } })).toEqual(plain);
    expect(plain.status).toBe(200);
  });

  it('are ignored inside nested objects (Limitation, Extent, a time filter)', async () => {
    const body = {
      Limitation: { Count: 3 },
      Extent: { Customers: true },
      UpdatedUtc: interval(TEST_START_MS - 30 * DAY_MS, TEST_START_MS),
    };
    const plain = await ask('customers/getAll', body);
    const extended = await ask('customers/getAll', {
      ...body,
      Limitation: { ...body.Limitation, PageHint: 'x' },
      Extent: { ...body.Extent, Reservations: true },
      UpdatedUtc: { ...body.UpdatedUtc, TimeZone: 'UTC' },
    });
    expect(plain.status).toBe(200);
    expect(extended).toEqual(plain);
  });

  it('are ignored in the items of an array: restrictions/clear with the fields whose names the contract leaves out', async () => {
    const model = h.sim.controls.model;
    const service = model.world.enterprises[0]!.services[0]!;
    const api = model.restrictions.find((r) => r.ServiceId === service.Id && r.origin === 'Api')!;
    const start = Date.parse(api.StartUtc);
    const answer = await ask('restrictions/clear', {
      ServiceId: service.Id,
      Data: [
        {
          Type: 'Stay',
          ExactRateId: service.rateIds[0]!,
          RateGroupId: service.rateIds[0]!,
          ResourceCategoryType: 'Room',
          Days: EVERY_DAY,
          StartUtc: new Date(start + 2 * DAY_MS).toISOString(),
          EndUtc: new Date(start + 3 * DAY_MS).toISOString(),
        },
      ],
    });
    expect(answer).toEqual({ status: 200, body: {} });
  });

  it('do not hide a known field that breaks the contract: 400 names it, not them', async () => {
    const answer = await ask('customers/getAll', {
      Limitation: { Count: 0 },
      Extent: { Customers: true },
      CustomerIds: [],
      Extra: 1,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.Message).toContain('Limitation.Count');
    expect(answer.body.Message).not.toContain('Extra');
  });

  it('do not stand in for a required field: a misspelt one is missing', async () => {
    const answer = await ask('customers/getAll', {
      limitation: { Count: 3 },
      Extent: { Customers: true },
      CustomerIds: [],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.Message).toMatch(/Limitation: /);
  });
});
