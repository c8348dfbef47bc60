import type { Clock } from '../clock.ts';
import { FORGOTTEN_AFTER_MS } from '../webhooks/waiting-deliveries.ts';

/** How often the local run looks whether its dispatch has been idle long enough (see startIdleOverdueCheck). */
export const IDLE_LOOK_EVERY_MS = 60_000;

/**
 * How long no dispatch batch must have run before the local run checks its waiting deliveries
 * on its own: as long as a delivery must be overdue before it is asked about (every batch checks
 * as it ends, so a run that has batches needs no more).
 */
export const IDLE_CHECK_AFTER_MS = FORGOTTEN_AFTER_MS;

/** What {@link idleCheckDue} decides on. */
export interface IdleState {
  now: number;
  /** When a batch (or this check) last started or ended. */
  lastActiveAt: number;
  /** Batches running now. */
  batchesRunning: number;
  /** Whether the process's memory notes any delivery waiting for a later attempt. */
  anyWaiting: boolean;
  idleMs: number;
}

/**
 * Whether the idle check runs now: no batch runs, none ran for `idleMs`, and something waits
 * (with nothing noted as waiting there is nothing that could be overdue). Pure.
 * @example idleCheckDue({ now: 900_000, lastActiveAt: 0, batchesRunning: 0, anyWaiting: true, idleMs: 900_000 }) === true
 */
export function idleCheckDue(state: IdleState): boolean {
  return (
    state.anyWaiting && state.batchesRunning === 0 && state.now - state.lastActiveAt >= state.idleMs
  );
}

/** What {@link startIdleOverdueCheck} needs. */
export interface IdleOverdueCheckOptions {
  clock: Clock;
  /** Whether the process's memory notes any delivery waiting for a later attempt. */
  anyWaiting: () => boolean;
  /** The check a batch makes as it ends (checkLongOverdueWaiting). */
  check: () => Promise<void>;
  /** Told when a check fails (it runs again after another idle period). */
  onError: (error: unknown) => void;
  /** How often it looks (default {@link IDLE_LOOK_EVERY_MS}; wall-clock time). */
  lookEveryMs?: number;
  /** How long without a batch before it checks (default {@link IDLE_CHECK_AFTER_MS}; by `clock`). */
  idleMs?: number;
}

/** A running idle check. */
export interface IdleOverdueCheck {
  /** Runs a batch (`work`), noting it: no check runs while one does, nor until idle again after it. */
  batch<T>(work: () => Promise<T>): Promise<T>;
  /** Stops looking and waits for a check under way. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Makes an idle local run check its waiting deliveries as a batch would. Every dispatch batch
 * ends by asking the store about the waiting deliveries the memory's sweep found more than 15
 * minutes overdue (DispatchBatch.flush), sending again those still pending whose retry message
 * may be lost; a run that gets no batch at all would leave them waiting until its next event or
 * restart. This looks once a minute (an unref'd timer: it keeps no process alive) and, when no
 * batch has run for {@link IDLE_CHECK_AFTER_MS} and the memory notes a waiting delivery, runs
 * the same check; the check counts as a batch, so an idle run checks once per idle period.
 * @example const idle = startIdleOverdueCheck({ clock, anyWaiting, check, onError }); await idle.stop();
 */
export function startIdleOverdueCheck(options: IdleOverdueCheckOptions): IdleOverdueCheck {
  const { clock } = options;
  const idleMs = options.idleMs ?? IDLE_CHECK_AFTER_MS;
  let lastActiveAt = clock.now();
  let batchesRunning = 0;
  let checking: Promise<void> | undefined;
  let stopped = false;

  const look = (): void => {
    if (stopped || checking) return;
    const due = idleCheckDue({
      now: clock.now(),
      lastActiveAt,
      batchesRunning,
      anyWaiting: options.anyWaiting(),
      idleMs,
    });
    if (!due) return;
    lastActiveAt = clock.now();
    checking = options
      .check()
      .catch(options.onError)
      .finally(() => {
        lastActiveAt = clock.now();
        checking = undefined;
      });
  };
  const timer = setInterval(look, options.lookEveryMs ?? IDLE_LOOK_EVERY_MS);
  timer.unref();

  return {
    async batch(work) {
      batchesRunning++;
      lastActiveAt = clock.now();
      try {
        return await work();
      } finally {
        batchesRunning--;
        lastActiveAt = clock.now();
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await checking;
    },
  };
}
