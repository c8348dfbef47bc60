import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { startCliHarness } from '../admin/support/cli.ts';

/** design.md's Event contract: the webhook body's top-level keys, in order. */
const BODY_KEYS = [
  'specversion',
  'id',
  'type',
  'source',
  'subject',
  'time',
  'datacontenttype',
  'data',
];

const event = buildChangeEvent({
  connectionId: 'main',
  entityType: 'customer',
  entityId: 'c1',
  scope: { chainId: 'ch1' },
  detectedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  change: 'created',
  current: { Id: 'c1', ChainId: 'ch1', LastName: 'Doe', UpdatedUtc: '2026-01-02T00:00:00Z' },
});
/** The body as the bridge stores and delivers it. */
const body = JSON.stringify(event);

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
  await cli.harness.store.putEvent({ id: event.id, type: event.type, storedAt: 1000, body });
});
afterAll(async () => {
  await cli?.close();
});

describe('the key order of a stored event', () => {
  it('is the webhook body’s in GET /events/{id}: specversion, id, type, source, …', async () => {
    expect(Object.keys(JSON.parse(body))).toEqual(BODY_KEYS);
    const answer = await fetch(`${cli.server.url}/events/${event.id}`);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(Object.keys(JSON.parse(text))).toEqual(BODY_KEYS);
    expect(text).toBe(body);
  });

  it('is the webhook body’s in what events show prints, and so are its values', async () => {
    const shown = await cli.run(['events', 'show', event.id]);
    expect(shown.code).toBe(0);
    const printed = JSON.parse(shown.stdout);
    expect(Object.keys(printed)).toEqual(BODY_KEYS);
    expect(JSON.stringify(printed)).toBe(body);
  });

  it('still refuses an answer that is no event, naming what it lacks', async () => {
    await cli.harness.store.putEvent({
      id: 'evt_00000000000000000000000009',
      type: 'customer.created',
      storedAt: 1001,
      body: JSON.stringify({ specversion: '1.0', type: 'customer.created' }),
    });
    const shown = await cli.run(['events', 'show', 'evt_00000000000000000000000009']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('JSON of another shape (id: Invalid input: expected string');
  });
});
