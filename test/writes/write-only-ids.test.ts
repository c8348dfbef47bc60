import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { createWriteThrough, type WriteThrough } from '../../shared/writes/write-through.ts';
import { collectingPublisher, simulatorConnector } from './support/simulator-writes.ts';

/**
 * Receivers deduplicate on event ids (README, Events): a write-only entity set back to a value
 * it had before (A→B→A) is a change all the same, and must not come with an id a receiver has
 * seen; the same write repeated with the same result keeps its id.
 */
describe('ids of the write-only events, written again and again', () => {
  let sim: RunningSimulator;
  let writeThrough: WriteThrough;
  const published: PublishableEvent[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, rateLimit: false });
    writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: simulatorConnector(sim),
      scope: {},
      publisher: collectingPublisher(published),
      state: new MemoryStateStore(),
      streams: [],
      clock: systemClock,
    });
  }, 30_000);

  afterAll(async () => {
    await writeThrough?.close();
    await sim?.close();
  });

  /** Sends `body` and returns the ids of the events of `subject` it published. */
  async function idsOf(
    operation: 'loyaltyPrograms/update' | 'routingRules/update' | 'restrictions/clear',
    body: Record<string, unknown>,
    subject: string,
  ) {
    const from = published.length;
    const result = await writeThrough.forward(operation, body);
    expect(result.status).toBe(200);
    const ids = published
      .slice(from)
      .filter((e) => e.subject === subject)
      .map((e) => e.id);
    expect(ids).toHaveLength(1);
    return ids[0]!;
  }

  it('gives a loyalty program renamed back to an earlier name a new id, and a repeated rename the same', async () => {
    const program = [...sim.controls.model.loyaltyPrograms.all()][0]!.record;
    const rename = (name: string) =>
      idsOf(
        'loyaltyPrograms/update',
        {
          ChainId: program.ChainId,
          LoyaltyProgramUpdates: [{ LoyaltyProgramId: program.Id, Name: { Value: name } }],
        },
        program.Id as string,
      );
    const first = await rename('Gold');
    const repeated = await rename('Gold');
    const second = await rename('Silver');
    const back = await rename('Gold');
    const backAgain = await rename('Silver');
    expect(repeated).toBe(first);
    expect(new Set([first, second, back, backAgain]).size).toBe(4);
  });

  it('gives a routing rule set back to an earlier value a new id', async () => {
    const rule = [...sim.controls.model.routingRules.all()][0]!.record;
    const set = (applicability: string) =>
      idsOf(
        'routingRules/update',
        {
          RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, Applicability: { Value: applicability } }],
        },
        rule.Id as string,
      );
    const ids = [await set('Always'), await set('PrepaidOnly'), await set('Always')];
    expect(new Set(ids).size).toBe(3);
  });

  it('gives restrictions cleared again, after others of the service were, a new id', async () => {
    const service = sim.controls.model.world.enterprises[0]!.services[0]!;
    const clear = (type: string) =>
      idsOf('restrictions/clear', { ServiceId: service.Id, Data: [{ Type: type }] }, service.Id);
    const stay = await clear('Stay');
    const start = await clear('Start');
    const stayAgain = await clear('Stay');
    expect(new Set([stay, start, stayAgain]).size).toBe(3);
  });
});
