import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 29);
});
afterAll(async () => {
  await harness?.close();
});

describe('one poll job of a connection', () => {
  it('polls every listed stream of the connection with one client, and skips streams it no longer defines', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const [first, second] = definitions;
    const deps = harness.deps('hotel');

    const { outcomes } = await pollConnectionStreams(
      [first!.streamId, 'hotel:gone', second!.streamId],
      definitions,
      deps,
      'test',
    );

    expect(outcomes.map((o) => `${o.streamId}/${o.kind}`)).toEqual([
      `${first!.streamId}/polled`,
      `${second!.streamId}/polled`,
    ]);
    expect(await harness.deps('hotel').store.getStream(first!.streamId)).toMatchObject({
      lastSuccessAt: expect.any(Number),
    });
  });

  it('starts no stream after the deadline: the next planner run finds it still due', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const deps = { ...harness.deps('hotel'), deadline: harness.clock.now() };
    await harness.deps('hotel').store.deleteStream(definitions[0]!.streamId);

    const { outcomes } = await pollConnectionStreams(
      [definitions[0]!.streamId],
      definitions,
      deps,
      't',
    );
    expect(outcomes).toEqual([
      { kind: 'skipped', streamId: definitions[0]!.streamId, reason: 'stopped' },
    ]);
  });

  it('leaves streams due after dueBy for the next job, and says when the connection is next due', async () => {
    const definitions = harness.definitions().filter((d) => d.streamId.startsWith('hotel:'));
    const deps = harness.deps('hotel');
    const now = harness.clock.now();
    for (const d of definitions) await deps.store.deleteStream(d.streamId);
    await pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      deps,
      't',
    );
    const states = await Promise.all(definitions.map((d) => deps.store.getStream(d.streamId)));
    const earliest = Math.min(...states.map((s) => s!.nextDueAt));

    const early = await pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      deps,
      't',
      now,
    );
    expect(early.outcomes).toEqual([]);
    expect(early.nextDueAt).toBe(earliest);
  });
});
