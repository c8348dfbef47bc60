import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EntityType } from '../../shared/changes/entity-types.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { startCliHarness } from '../admin/support/cli.ts';
import { storedChangeEvent } from '../admin/support/harness.ts';

/** The `index`th stored event's id, shaped as the bridge makes them (`evt_` and 26 characters). */
const eventId = (index: number) => `evt_${String(index).padStart(26, '0')}`;

let cli: Awaited<ReturnType<typeof startCliHarness>>;
let subscriptionId: string;
beforeAll(async () => {
  cli = await startCliHarness();
  for (const [index, type] of [
    'customer.created',
    'customer.updated',
    'resource.deleted',
  ].entries()) {
    const event = storedChangeEvent(eventId(index), type);
    await cli.harness.store.putEvent({
      id: event.id,
      type,
      storedAt: 1000 + index,
      body: JSON.stringify(event),
    });
  }
  const added = await cli.run([
    'subscriptions',
    'add',
    '--url',
    'http://127.0.0.1:9000/h',
    '--json',
  ]);
  subscriptionId = JSON.parse(added.stdout).id;
});
afterAll(async () => {
  await cli?.close();
});

describe('change-bridge events', () => {
  it('list prints an aligned table, filters by type and limits; --json is one document', async () => {
    const table = await cli.run(['events', 'list']);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STORED$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${eventId(2)}\\s+resource\\.deleted\\s+1970-01-01 00:00:01$`),
    );
    const typed = JSON.parse(
      (await cli.run(['events', 'list', '--type', 'customer.updated', '--json'])).stdout,
    );
    expect(typed).toEqual([
      { id: eventId(1), type: 'customer.updated', storedAt: new Date(1001).toISOString() },
    ]);
    const limited = JSON.parse(
      (await cli.run(['events', 'list', '--limit', '2', '--json'])).stdout,
    );
    expect(limited).toHaveLength(2);
  });

  it('list says on stderr how to get the older events past a full page, and --cursor gets them', async () => {
    const first = await cli.run(['events', 'list', '--limit', '2']);
    const cursor = /add --cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const older = await cli.run(['events', 'list', '--limit', '2', '--cursor', cursor!, '--json']);
    expect(older.code).toBe(0);
    expect(JSON.parse(older.stdout).map((e: { id: string }) => e.id)).toEqual([eventId(0)]);
    expect(older.stderr).toBe('');
    const bad = await cli.run(['events', 'list', '--cursor', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--cursor: must be a nextCursor a previous page gave');
  });

  it('list exits 2 naming --limit when it is not a count', async () => {
    const result = await cli.run(['events', 'list', '--limit', 'lots']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --limit: must be a whole number from 1 to 1000');
  });

  it('show prints the stored event as JSON, and exits 1 for an unknown one', async () => {
    const shown = await cli.run(['events', 'show', eventId(1)]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(storedChangeEvent(eventId(1), 'customer.updated'));
    const unknown = await cli.run(['events', 'show', eventId(9)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(eventId(9));
  });

  it('show and replay exit 2 naming the id when it cannot be an event id, which the API answers 404', async () => {
    for (const id of ['bad id', 'evt_1', `${eventId(1)}x`, 'evt_0000000000000000000000000a']) {
      for (const command of ['show', 'replay']) {
        const result = await cli.run(['events', command, id]);
        expect({ id, command, code: result.code }).toEqual({ id, command, code: 2 });
        expect(result.stdout).toBe('');
        expect(result.stderr.split('\n')[0]).toBe(
          'error: id: must be an event id: evt_ and 26 characters, as events list prints it',
        );
      }
      // The admin API's answer stays the OpenAPI's: an id it does not hold is 404.
      const answer = await fetch(`${cli.server.url}/events/${encodeURIComponent(id)}`);
      expect(answer.status).toBe(404);
    }
    expect(await cli.harness.store.listDeliveries({ subscriptionId, limit: 10 })).toEqual([]);
  });

  it('replay creates deliveries to matching subscriptions or the one named', async () => {
    const all = await cli.run(['events', 'replay', eventId(0)]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(`-> ${subscriptionId}`);
    const named = JSON.parse(
      (await cli.run(['events', 'replay', eventId(2), '--subscription', subscriptionId, '--json']))
        .stdout,
    );
    expect(named).toMatchObject([{ eventId: eventId(2), subscriptionId, status: 'pending' }]);
  });
});

describe('change-bridge deliveries', () => {
  it('list shows deliveries with the last attempt; --json carries the attempt log', async () => {
    const [first] = await cli.harness.store.listDeliveries({ subscriptionId, limit: 10 });
    await cli.harness.store.putAttempt({
      deliveryId: first!.id,
      attempt: 1,
      at: 0,
      status: 500,
      latencyMs: 3,
      responseHeaders: {},
      responseBody: '',
      outcome: 'retry',
    });
    const table = await cli.run(['deliveries', 'list', '--subscription', subscriptionId]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^DELIVERY\s+EVENT\s+SUBSCRIPTION\s+STATUS\s+ATTEMPTS/,
    );
    expect(table.stdout).toContain('500 retry');
    const json = JSON.parse(
      (await cli.run(['deliveries', 'list', '--event', first!.eventId, '--json'])).stdout,
    );
    expect(json).toMatchObject([{ delivery: { id: first!.id }, attempts: [{ status: 500 }] }]);
    // Times in ISO 8601, as in every other --json output.
    expect(json[0].attempts[0].at).toBe('1970-01-01T00:00:00.000Z');
    expect(json[0].delivery.createdAt).toBe(new Date(first!.createdAt).toISOString());
    expect(json[0].delivery.nextAttemptAt).toBe(new Date(first!.nextAttemptAt).toISOString());
  });

  it('--json shows no next attempt for a delivery that has none to make', async () => {
    const [first] = await cli.harness.store.listDeliveries({ subscriptionId, limit: 10 });
    const { deadAt: _none, ...pending } = first!;
    await cli.harness.store.createDelivery({ ...pending, id: 'dlv_done', status: 'delivered' });
    const json = JSON.parse(
      (await cli.run(['deliveries', 'list', '--event', first!.eventId, '--json'])).stdout,
    );
    const done = json.find(
      ({ delivery }: { delivery: { id: string } }) => delivery.id === 'dlv_done',
    );
    expect(done.delivery).toMatchObject({ status: 'delivered', updatedAt: expect.any(String) });
    expect(done.delivery).not.toHaveProperty('nextAttemptAt');
  });
});

describe('change-bridge deliveries redeliver and subscriptions enable/disable', () => {
  it("redelivers a subscription's dead letters with their event ids; --since a duration or an instant", async () => {
    const dead = {
      id: 'dlv_dead',
      eventId: eventId(0),
      subscriptionId,
      status: 'dead' as const,
      attempts: 8,
      nextAttemptAt: 0,
      createdAt: 0,
      updatedAt: 0,
      version: 1,
      deadReason: 'no success after 8 attempts',
      deadAt: cli.harness.clock.now() - 3 * 3_600_000,
    };
    await cli.harness.store.createDelivery(dead);
    await cli.harness.store.addDeadLetter(dead);
    // Dead three hours ago: not within the last hour.
    const recent = await cli.run([
      'deliveries',
      'redeliver',
      '--subscription',
      subscriptionId,
      '--since',
      '1h',
    ]);
    expect(recent).toMatchObject({ code: 0 });
    expect(recent.stdout).toContain(`No dead letters of ${subscriptionId}`);
    const all = await cli.run([
      'deliveries',
      'redeliver',
      '--subscription',
      subscriptionId,
      '--json',
    ]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject([
      { eventId: eventId(0), subscriptionId, status: 'pending' },
    ]);
    const another = { ...dead, id: 'dlv_dead_again', eventId: eventId(1) };
    await cli.harness.store.createDelivery(another);
    await cli.harness.store.addDeadLetter(another);
    const one = await cli.run(['deliveries', 'redeliver', '--subscription', subscriptionId]);
    expect(one.code).toBe(0);
    // A new delivery of the dead letter's event.
    expect(one.stdout.trim()).toMatch(
      new RegExp(
        `^Delivering again 1 dead letter of ${subscriptionId}:\n  dlv_\\w+  ${eventId(1)}$`,
      ),
    );
    const bad = await cli.run([
      'deliveries',
      'redeliver',
      '--subscription',
      subscriptionId,
      '--since',
      'soon',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: "soon" is neither a duration');
  });

  it('disables and enables a subscription', async () => {
    const disabled = await cli.run(['subscriptions', 'disable', subscriptionId, '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id: subscriptionId, enabled: false });
    // A disabled subscription takes no redelivery: exit 1 with the API's reason.
    expect(
      (await cli.run(['deliveries', 'redeliver', '--subscription', subscriptionId])).code,
    ).toBe(1);
    const enabled = await cli.run(['subscriptions', 'enable', subscriptionId]);
    expect(enabled).toMatchObject({ code: 0 });
    expect(enabled.stdout).toContain(`Enabled subscription ${subscriptionId}`);
    const none = 'sub_00000000000000000000000000';
    expect((await cli.run(['subscriptions', 'enable', none])).code).toBe(1);
  });
});

/** A stream of connection `main` as the state store keeps it, never polled unless `fields` say. */
function streamState(entityType: EntityType, fields: Partial<StreamState>): StreamState {
  const definition = { streamId: `main:${entityType}`, connectionId: 'main', spec: { entityType } };
  return { ...initialStreamState(definition, 0), ...fields };
}

describe('change-bridge streams', () => {
  it('list shows every stream with watermark, lag and state; --json parses', async () => {
    const now = cli.harness.clock.now();
    await cli.harness.state.saveStream(
      streamState('customer', {
        watermark: new Date(now - 30_000).toISOString(),
        lastPollAt: now - 1000,
        lastSuccessAt: now - 1000,
        nextDueAt: now,
        initialSyncDone: true,
      }),
      0,
    );
    const table = await cli.run(['streams', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /main:customer\s+2026-02-28 23:59:30\s+2026-02-28 23:59:59\s+30s\s+0\s+ok/,
    );
    expect(table.stdout).toMatch(/main:resource\s+-\s+-\s+-\s+0\s+never polled/);
    const json = JSON.parse((await cli.run(['streams', 'list', '--json'])).stdout);
    expect(json.map((s: { id: string }) => s.id)).toEqual([
      'main:customer',
      'main:resource',
      'main:taxEnvironment',
    ]);
  });

  it('list shows a stream whose first poll run is still reading as in its first sync, not "never polled"', async () => {
    const now = cli.harness.clock.now();
    // Saved page by page while the run goes on: lastPollAt waits for the run's end.
    await cli.harness.state.saveStream(
      streamState('resource', {
        watermark: new Date(now - 86_400_000).toISOString(),
        window: {
          startUtc: new Date(now - 86_400_000).toISOString(),
          endUtc: new Date(now).toISOString(),
          cursor: 'c-7',
          count: 1000,
          pages: 7,
        },
        recordsRead: 57_000,
      }),
      0,
    );
    try {
      const table = await cli.run(['streams', 'list']);
      expect(table.stdout).toMatch(
        /main:resource\s+2026-02-28 00:00:00\s+-\s+24h\s+0\s+first sync \(57,000 records, window 7 pages\)/,
      );
      const json = JSON.parse((await cli.run(['streams', 'list', '--json'])).stdout);
      expect(json.find((s: { id: string }) => s.id === 'main:resource')).toMatchObject({
        lastPollAt: null,
        initialSyncDone: false,
        windowInProgress: { pages: 7 },
        recordsRead: 57_000,
      });
    } finally {
      await cli.harness.state.deleteStream('main:resource');
    }
  });

  it('list says "not polled" of a stream parked before its entity was dropped, not "parked"', async () => {
    const now = cli.harness.clock.now();
    await cli.harness.state.saveStream(
      streamState('paymentRequest', {
        lastPollAt: now - 1000,
        nextDueAt: now,
        consecutiveFailures: 3,
        lastError: 'HTTP 403',
        parked: true,
        parkedReason: 'HTTP 403: the token may not read payment requests',
      }),
      0,
    );
    const table = await cli.run(['streams', 'list']);
    expect(table.stdout).toMatch(/main:paymentRequest\s.*\snot polled\s+HTTP 403/);
  });

  it('reset forgets the stream; an unknown stream exits 1, a malformed id 2', async () => {
    const reset = await cli.run(['streams', 'reset', 'main:customer']);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('Reset main:customer');
    // Started again: a fresh state marked as the reset's first sync.
    expect(await cli.harness.state.getStream('main:customer')).toMatchObject({
      watermark: null,
      initialSyncDone: false,
      backfill: { kind: 'first-sync', jobId: expect.stringMatching(/^reset_/) },
    });
    expect((await cli.run(['streams', 'reset', 'other:customer'])).code).toBe(1);
    const malformed = await cli.run(['streams', 'reset', 'main:nothing']);
    expect(malformed).toMatchObject({ code: 2, stdout: '' });
    expect(malformed.stderr).toContain('stream: nothing is not an entity type');
  });
});

describe('change-bridge backfill', () => {
  /** Plays the pollers: once the backfill reset a stream, moves its watermark to the job start. */
  async function catchUp(streamId: string, patch: Record<string, unknown> = {}) {
    const state = await vi.waitFor(
      async () => {
        const found = await cli.harness.state.getStream(streamId);
        if (!found || found.watermark !== null) throw new Error('not reset yet');
        return found;
      },
      { timeout: 5000, interval: 5 },
    );
    await cli.harness.state.saveStream(
      { ...state, watermark: new Date(cli.harness.clock.now()).toISOString(), ...patch },
      state.version,
    );
  }

  it('resets the streams, polls progress and prints plain progress lines until done', async () => {
    await cli.harness.state.deleteStream('main:taxEnvironment');
    const run = cli.run([
      'backfill',
      '--entities',
      'taxEnvironment',
      '--emit',
      '--poll-interval',
      '100ms',
    ]);
    await catchUp('main:taxEnvironment');
    const result = await run;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Backfill bf_\w+: 1 stream, emitting created events/);
    expect(result.stdout).toContain('[░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0%  main:taxEnvironment');
    expect(result.stdout).toContain('[██████████████████████████████] 100%  main:taxEnvironment');
    expect(result.stdout).toMatch(
      /total 100%: read 0 records · published 0 events · delivered 0 webhooks · done in \d+ s\n/,
    );
    // Said once the webhooks of its events are delivered (none here: it published none).
    expect(result.stdout).toMatch(/done: every stream has caught up; 0 webhooks delivered$/);
  });

  it('prints one JSON line per progress sample with --json, the last one the finished job', async () => {
    await cli.harness.state.deleteStream('main:resource');
    const run = cli.run([
      'backfill',
      '--entities',
      'resource',
      '--json',
      '--poll-interval',
      '100ms',
    ]);
    await catchUp('main:resource');
    const result = await run;
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatchObject({ done: false, etaSeconds: null, recordsRead: 0 });
    expect(lines.at(-1)).toMatchObject({
      done: true,
      fraction: 1,
      emit: false,
      etaSeconds: 0,
      recordsRead: 0,
      eventsPublished: 0,
      webhooksDelivered: 0,
    });
  });

  it('watches the other streams to their end when one parks, then exits 1 naming it', async () => {
    await cli.harness.state.deleteStream('main:resource');
    await cli.harness.state.deleteStream('main:taxEnvironment');
    const run = cli.run([
      'backfill',
      '--entities',
      'resource,taxEnvironment',
      '--poll-interval',
      '100ms',
    ]);
    await vi.waitFor(async () => {
      const state = await cli.harness.state.getStream('main:resource');
      if (!state) throw new Error('not reset yet');
      await cli.harness.state.saveStream(
        { ...state, parked: true, lastError: 'authorization failed' },
        state.version,
      );
    });
    // The parked stream does not end the watch while another is still reading.
    const early = await Promise.race([
      run.then(() => 'exited'),
      new Promise((resolve) => setTimeout(() => resolve('watching'), 150)),
    ]);
    expect(early).toBe('watching');
    await catchUp('main:taxEnvironment');
    const result = await run;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('100%  main:taxEnvironment');
    expect(result.stderr).toContain('main:resource (parked: authorization failed)');
    expect(result.stderr).toContain('(1 of 2 streams caught up)');
  });

  it('exits 1 when a stream parks, and 2 naming an entity type or interval that is invalid', async () => {
    await cli.harness.state.deleteStream('main:resource');
    const run = cli.run(['backfill', '--entities', 'resource', '--poll-interval', '100ms']);
    await vi.waitFor(async () => {
      const state = await cli.harness.state.getStream('main:resource');
      if (!state) throw new Error('not reset yet');
      await cli.harness.state.saveStream(
        { ...state, parked: true, lastError: 'authorization failed' },
        state.version,
      );
    });
    const parked = await run;
    expect(parked.code).toBe(1);
    expect(parked.stderr).toContain('main:resource (parked: authorization failed)');
    expect(parked.stderr).toContain('(0 of 1 streams caught up)');

    const unknown = await cli.run(['backfill', '--entities', 'customer,guest']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--entities: guest: must be one of customer, resource');
    const interval = await cli.run(['backfill', '--poll-interval', 'soon']);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('--poll-interval');
    // One connection's streams only: another connection that parks is no concern of the job.
    // An id that names nothing exits 1, as everywhere (backfill-unknown-connection.test.ts).
    const noSuch = await cli.run(['backfill', '--connection', 'other']);
    expect(noSuch.code).toBe(1);
    expect(noSuch.stderr).toContain('error: connection other does not exist');
  });

  it('has --help listing its flags', async () => {
    const help = await cli.run(['backfill', '--help'], { api: false });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--entities <types>');
    expect(help.stdout).toContain('--connection <ids>');
    expect(help.stdout).toContain('--emit');
  });
});
