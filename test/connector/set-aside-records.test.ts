import { afterEach, describe, expect, it } from 'vitest';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import type { PaginateOptions } from '../../shared/connector/paginate.ts';
import { type CannedResponse, type JsonServer, startJsonServer } from '../support/json-server.ts';
import { SAMPLE_CUSTOMER } from './fixtures.ts';

const BODY = {
  Limitation: { Count: 4 },
  Extent: { Customers: true },
  UpdatedUtc: { StartUtc: '2026-03-01T00:00:00Z', EndUtc: '2026-03-02T00:00:00Z' },
};
const id = (n: number) => `c0ffee00-0000-4000-8000-${String(n).padStart(12, '0')}`;
const customer = (n: number): Record<string, unknown> => ({ ...SAMPLE_CUSTOMER, Id: id(n) });

let server: JsonServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client over a server that answers the customers pages `answers` in turn. */
async function clientFor(answers: CannedResponse[]) {
  server = await startJsonServer(
    () => answers[Math.min(server!.requests.length, answers.length) - 1]!,
  );
  return createConnectorClient({
    baseUrl: server.url,
    clientToken: 'ct',
    accessToken: 'at',
    client: 'tests',
    rateLimit: false,
  });
}

async function walk(answers: CannedResponse[], options: PaginateOptions) {
  const client = await clientFor(answers);
  try {
    const pages = [];
    for await (const page of client.paginate('customers/getAll', BODY, options)) pages.push(page);
    return pages;
  } finally {
    await client.close();
  }
}

describe('records that break their schema, with the setAside option', () => {
  it('sets them aside by Id or place in the page, keeps the others, and counts them toward the page length', async () => {
    const { Id: _lost, ...withoutId } = customer(3);
    const first = [customer(0), { ...customer(1), Email: 42 }, customer(2), withoutId];
    const second = [customer(4), null];
    // The screen passes over the first record: places are those of the page as it was sent.
    const screens = () => ({
      screen: (items: readonly unknown[]) =>
        items.filter((item) => (item as { Id?: string } | null)?.Id !== id(0)),
    });
    const pages = await walk(
      [
        { body: { Customers: first, Cursor: id(3) } },
        { body: { Customers: second, Cursor: id(5) } },
      ],
      { screens, setAside: true },
    );
    expect(pages.map((p) => [p.items.map((c) => c.Id), p.passedOver, p.last])).toEqual([
      [[id(2)], 1, false],
      [[id(4)], 0, true],
    ]);
    const [one, three] = pages[0]!.setAside;
    expect(one).toMatchObject({ path: 'Customers[1].Email', recordId: id(1) });
    expect(one!.error).toMatch(
      new RegExp(
        `^customers/getAll: record set aside: .*Customers\\[1\\]\\.Email \\(record Id ${id(1)}\\)`,
      ),
    );
    expect(three).toMatchObject({ path: 'Customers[3].Id' });
    expect(three).not.toHaveProperty('recordId');
    expect(pages[1]!.setAside).toMatchObject([{ path: 'Customers[1]' }]);
  });

  it('sets aside none of the records whose optional fields are null', async () => {
    const sent = [
      { ...customer(0), Title: null, Sex: null, HasOtaEmail: null },
      { ...customer(1), Title: null },
    ];
    const [page] = await walk([{ body: { Customers: sent, Cursor: id(1) } }], { setAside: true });
    expect(page!.setAside).toEqual([]);
    expect(page!.items).toEqual(sent);
  });

  it('sets aside no record over the format of its Email: internationalized addresses are kept', async () => {
    const emails = ['josé@example.com', 'info@bücher.example', '用户@例子.广告'];
    const sent = emails.map((Email, n) => ({ ...customer(n), Email }));
    const [page] = await walk([{ body: { Customers: sent, Cursor: id(2) } }], { setAside: true });
    expect(page!.setAside).toEqual([]);
    expect(page!.items.map((c) => c.Email)).toEqual(emails);
  });

  it('still fails a page whose envelope is broken', async () => {
    const broken: CannedResponse[] = [
      { body: { Customers: { not: 'a list' }, Cursor: null } },
      { body: { Customers: [customer(0), { ...customer(1), Email: 42 }], Cursor: 42 } },
      { body: { Cursor: null } },
    ];
    for (const answer of broken) {
      const error = await walk([answer], { setAside: true }).catch((e: unknown) => e);
      expect(error, JSON.stringify(answer.body)).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).category).toBe('response');
    }
  });

  it('fails the call on such a record without the option', async () => {
    const error = await walk(
      [{ body: { Customers: [customer(0), { ...customer(1), Email: 42 }], Cursor: null } }],
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).message).toContain(`Customers[1].Email (record Id ${id(1)})`);
  });
});
