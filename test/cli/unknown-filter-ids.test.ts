import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';
import { storedChangeEvent } from '../admin/support/harness.ts';
import { streamState } from '../state/state-store.contract.ts';

/** Ids shaped as the bridge makes them (another shape is refused before anything is sent). */
const NO_SUBSCRIPTION = 'sub_00000000000000000000000000';
const NO_EVENT = 'evt_00000000000000000000000000';
const QUIET_EVENT = 'evt_00000000000000000000000001';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
let quietId: string;
beforeAll(async () => {
  cli = await startCliHarness();
  const event = storedChangeEvent(QUIET_EVENT, 'customer.updated');
  await cli.harness.store.putEvent({
    id: event.id,
    type: event.type,
    storedAt: 1000,
    body: JSON.stringify(event),
  });
  const added = await cli.run([
    'subscriptions',
    'add',
    '--url',
    'http://127.0.0.1:9000/h',
    '--json',
  ]);
  quietId = JSON.parse(added.stdout).id;
  // A removed connection whose streams were kept (`connections remove --keep-state`).
  await cli.harness.state.saveStream(streamState('kept:customer'), 0);
});
afterAll(async () => {
  await cli?.close();
});

describe('a list filtered by an id that names nothing', () => {
  it('deliveries list --subscription exits 1 saying the subscription does not exist', async () => {
    for (const json of [[], ['--json']]) {
      const result = await cli.run([
        'deliveries',
        'list',
        '--subscription',
        NO_SUBSCRIPTION,
        ...json,
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`subscription ${NO_SUBSCRIPTION} does not exist`);
    }
  });

  it('deliveries list --event exits 1 saying the event is not stored', async () => {
    const result = await cli.run(['deliveries', 'list', '--event', NO_EVENT, '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`event ${NO_EVENT} is not stored`);
  });

  it('streams list --connection exits 1 saying the connection does not exist', async () => {
    const result = await cli.run(['streams', 'list', '--connection', 'other', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('connection other does not exist');
  });

  it('lists nothing with exit 0 when the id names something with nothing to list', async () => {
    const bySubscription = await cli.run(['deliveries', 'list', '--subscription', quietId]);
    expect(bySubscription).toMatchObject({ code: 0, stdout: 'no deliveries' });
    const byEvent = await cli.run(['deliveries', 'list', '--event', QUIET_EVENT, '--json']);
    expect(byEvent).toMatchObject({ code: 0, stdout: '[]' });
  });

  it('still lists what is kept of a removed one', async () => {
    const kept = await cli.run(['streams', 'list', '--connection', 'kept', '--json']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).map((s: { id: string }) => s.id)).toEqual(['kept:customer']);
  });
});
