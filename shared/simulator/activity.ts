import type { Clock } from '../clock.ts';
import { pickAction, TOTAL_WEIGHT } from './activity-actions.ts';
import { ActivityRotation } from './activity-rotation.ts';
import { advanceExports } from './export-lifecycle.ts';
import type { SimModel } from './model.ts';

/**
 * The most background mutations per second `--activity` and a run of `POST /_sim/activity`
 * take. The activity runs on the simulator's one thread at a few thousand mutations a second at
 * best: a rate beyond that left it answering no request and slow to stop on SIGINT or SIGTERM.
 */
export const SIM_MAX_ACTIVITY_PER_SECOND = 1000;

/**
 * The most mutations one run of `POST /_sim/activity` makes: a minute at the most
 * {@link SIM_MAX_ACTIVITY_PER_SECOND}. A run makes them all at once, on the one thread (about
 * 10,000 a second), answering nothing meanwhile.
 */
export const SIM_MAX_ACTIVITY_RUN_STEPS = 60 * SIM_MAX_ACTIVITY_PER_SECOND;

/** The longest `durationMs` of one run: an hour, 36,000 ticks of 100 ms. */
export const SIM_MAX_ACTIVITY_RUN_MS = 3_600_000;

/**
 * The hotel's background activity: each step draws one weighted action (create, update,
 * touch, soft-delete, restore or hard-delete across entity types) and journals it. The
 * same seed and clock give the same sequence. The records it creates are rotated (see
 * ActivityRotation): past as many as were seeded it deletes its oldest, so its population, and
 * the simulator's memory, stays bounded however long it runs.
 */
export class ActivityGenerator {
  private abort: AbortController | null = null;
  private readonly rotation: ActivityRotation;

  constructor(
    private readonly model: SimModel,
    private readonly clock: Clock,
  ) {
    // The quotas are the seeded sets' sizes: made before any activity.
    this.rotation = new ActivityRotation(model);
  }

  /**
   * Performs `count` mutations now; a draw that finds nothing to act on draws again. The
   * rotation's deletes come on top of them.
   */
  step(count = 1): void {
    advanceExports(this.model);
    const model = this.model;
    model.onCreated = (type, key) => this.rotation.noteCreated(type, key);
    try {
      for (let done = 0; done < count; ) {
        const action = pickAction(model.random.source() * TOTAL_WEIGHT);
        if (!action(model)) continue;
        done += 1;
        this.rotation.trim();
      }
    } finally {
      model.onCreated = undefined;
    }
  }

  /**
   * Runs in the background at `perSecond` mutations per second of the injected clock, in
   * ticks of 100 ms to 1 s (so a high rate does not mean a timer per mutation).
   */
  start(perSecond: number): void {
    this.stop();
    if (perSecond <= 0) return;
    const controller = new AbortController();
    this.abort = controller;
    // Ticks of 100 ms to 1 s: a stopped loop ends within one tick. The abort signal is not
    // handed to sleep, because ManualClock keeps one abort listener per sleep on the signal.
    const tickMs = Math.min(Math.max(1000 / perSecond, 100), 1000);
    const loop = async () => {
      let due = 0;
      for (;;) {
        await this.clock.sleep(tickMs);
        if (controller.signal.aborted) return;
        due += (perSecond * tickMs) / 1000;
        const steps = Math.floor(due);
        due -= steps;
        this.step(steps);
      }
    };
    loop().catch(() => undefined);
  }

  /** Stops the background loop. */
  stop(): void {
    this.abort?.abort();
    this.abort = null;
  }

  /** True while the background loop runs. */
  get running(): boolean {
    return this.abort !== null;
  }
}
