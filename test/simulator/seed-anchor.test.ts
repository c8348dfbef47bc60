import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { BridgeError } from '../../shared/errors.ts';
import { EntitySet } from '../../shared/simulator/entity-set.ts';
import type { SimModel } from '../../shared/simulator/model.ts';
import {
  readOrCreateSeedAnchor,
  SEED_ANCHOR_FILE_NAME,
} from '../../shared/simulator/seed-anchor.ts';
import { DAY_MS } from '../../shared/simulator/sim-random.ts';
import { type SimulatorOptions, startSimulator } from '../../shared/simulator/simulator.ts';
import { TEST_START_MS } from './harness.ts';

/**
 * Every seeded collection of a model: each record set's entries (records with their times and
 * flags), the lists and maps beside them, and the world. The journal is left out: seeding
 * journals nothing, and what is journaled after it is activity, not seed.
 */
function seededCollections(model: SimModel): Record<string, unknown> {
  const collections: Record<string, unknown> = { world: model.world };
  for (const [name, value] of Object.entries(model)) {
    if (value instanceof EntitySet) collections[name] = [...value.all()];
    else if (value instanceof Map || Array.isArray(value)) collections[name] = value;
  }
  return collections;
}

/** The model a simulator seeds when started at `realNowMs` with `options`. */
async function seedAt(realNowMs: number, options: SimulatorOptions): Promise<SimModel> {
  const sim = await startSimulator({
    seed: 5,
    size: 'small',
    clock: new ManualClock(realNowMs),
    ...options,
  });
  await sim.close();
  return sim.controls.model;
}

describe('seeding from a seed anchor', () => {
  const anchorMs = TEST_START_MS;
  const later = TEST_START_MS + 3 * DAY_MS + 12_345;

  it('seeds identical records in every collection from the same anchor at different real times', async () => {
    const first = await seedAt(anchorMs, { seededAtMs: anchorMs, activitySeed: 1 });
    const again = await seedAt(later, { seededAtMs: anchorMs, activitySeed: 2 });
    const collections = seededCollections(first);
    expect(Object.keys(collections)).toEqual(
      expect.arrayContaining(['customers', 'billingAutomations', 'taxEnvironments', 'exports']),
    );
    expect(Object.keys(collections).length).toBeGreaterThan(20);
    expect(seededCollections(again)).toEqual(collections);
  });

  it('seeds records whose times move with the clock when no anchor is given', async () => {
    const first = await seedAt(anchorMs, {});
    const again = await seedAt(later, {});
    expect([...again.customers.all()][0]?.record.CreatedUtc).not.toBe(
      [...first.customers.all()][0]?.record.CreatedUtc,
    );
  });

  it('times activity after seeding by the real clock, not the anchor', async () => {
    const clock = new ManualClock(later);
    const sim = await startSimulator({ seed: 5, size: 'small', clock, seededAtMs: anchorMs });
    try {
      await sim.controls.runActivity({ steps: 5 });
      const times = sim.controls.journal().map((entry) => Date.parse(entry.time));
      expect(times.length).toBeGreaterThan(0);
      expect(new Set(times)).toEqual(new Set([later]));
    } finally {
      await sim.close();
    }
  });

  it('draws activity from the activity seed, so a new seed does not replay earlier ids', async () => {
    const activityIds = async (activitySeed: number) => {
      const clock = new ManualClock(later);
      const sim = await startSimulator({ seed: 5, clock, seededAtMs: anchorMs, activitySeed });
      try {
        await sim.controls.runActivity({ steps: 40 });
        return sim.controls
          .journal()
          .filter((entry) => entry.kind === 'created')
          .map((entry) => entry.entityId);
      } finally {
        await sim.close();
      }
    };
    const ids = await activityIds(11);
    expect(ids.length).toBeGreaterThan(0);
    expect(await activityIds(11)).toEqual(ids);
    const others = await activityIds(12);
    expect(others.filter((id) => ids.includes(id))).toEqual([]);
  });
});

describe('readOrCreateSeedAnchor', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cb-seed-anchor-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores the current time on a fresh data dir and returns it on later starts', async () => {
    const created = await readOrCreateSeedAnchor(dataDir, new ManualClock(anchorAt(0)));
    const reread = await readOrCreateSeedAnchor(dataDir, new ManualClock(anchorAt(5)));
    expect(created).toEqual({ seededAtMs: anchorAt(0) });
    expect(reread).toEqual(created);
    expect(await readdir(dataDir)).toEqual([SEED_ANCHOR_FILE_NAME]);
  });

  it('refuses a file that holds no anchor, naming it', async () => {
    const path = join(dataDir, SEED_ANCHOR_FILE_NAME);
    await writeFile(path, '{"seededAtMs":"yesterday"}');
    const refused = readOrCreateSeedAnchor(dataDir, new ManualClock());
    await expect(refused).rejects.toBeInstanceOf(BridgeError);
    await expect(refused).rejects.toThrow(path);
    await writeFile(path, 'not json');
    await expect(readOrCreateSeedAnchor(dataDir, new ManualClock())).rejects.toThrow(path);
  });
});

/** A time `days` days after the test start. */
function anchorAt(days: number): number {
  return TEST_START_MS + days * DAY_MS;
}
