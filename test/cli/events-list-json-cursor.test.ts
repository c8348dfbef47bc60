import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';
import { storedChangeEvent } from '../admin/support/harness.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
  for (const index of [0, 1, 2, 3, 4]) {
    const event = storedChangeEvent(`evt_${index}`, 'customer.updated');
    await cli.harness.store.putEvent({
      id: event.id,
      type: event.type,
      storedAt: 1000 + index,
      body: JSON.stringify(event),
    });
  }
});
afterAll(async () => {
  await cli?.close();
});

/** One `events list --json` page as a script reads it: stdout parsed as one JSON document. */
async function page(args: readonly string[]): Promise<{ id: string; nextCursor?: string }[]> {
  const result = await cli.run(['events', 'list', '--limit', '2', '--json', ...args]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('events list --json', () => {
  it('pages through every event with the nextCursor its last event carries on stdout', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const events = await page(cursor === undefined ? [] : ['--cursor', cursor]);
      seen.push(...events.map((event) => event.id));
      cursor = events.at(-1)?.nextCursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(['evt_4', 'evt_3', 'evt_2', 'evt_1', 'evt_0']);
  });

  it('keeps the document an array of events, the cursor only on the last of a full page', async () => {
    const [newest, last] = await page([]);
    expect(newest).toEqual({
      id: 'evt_4',
      type: 'customer.updated',
      storedAt: new Date(1004).toISOString(),
    });
    expect(last).toMatchObject({ id: 'evt_3', nextCursor: expect.any(String) });
    const lastPage = await page(['--cursor', last!.nextCursor!, '--limit', '5']);
    expect(lastPage.map((event) => event.id)).toEqual(['evt_2', 'evt_1', 'evt_0']);
    expect(lastPage.some((event) => 'nextCursor' in event)).toBe(false);
  });
});
