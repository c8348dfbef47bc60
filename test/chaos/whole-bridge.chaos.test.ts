import { describe, expect, it } from 'vitest';
import { isRetryAfterViolation } from './chaos-receiver.ts';
import {
  type DeliveredChange,
  duplicateIds,
  outOfOrderArrivals,
  revisitedStates,
} from './duplicate-ids.ts';
import {
  bindingViolations,
  busiestWindow,
  formatChaosResult,
  PAUSE_LEARNING_MS,
  runChaos,
} from './run-chaos.ts';

const change = (
  id: string,
  second: number,
  previous: string | null,
  current: string,
): DeliveredChange => ({
  id,
  type: previous === null ? 'resource.created' : 'resource.updated',
  subject: 'r1',
  previous: previous === null ? null : { State: previous, UpdatedUtc: `${second}` },
  content: { State: current, UpdatedUtc: `${second}` },
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
});

describe('whole-bridge chaos', () => {
  it('holds the bridge to a pause it had time to learn, not to one a SIGKILL took with the 429', () => {
    const violation = { at: 600, pausedFrom: 1_000, pausedUntil: 3_000, webhookId: 'w' };
    const late = { ...violation, at: 1_600 };
    expect(bindingViolations([late], [])).toEqual([late]);
    expect(bindingViolations([late], [1_000])).toEqual([]);
    expect(bindingViolations([late], [1_000 + PAUSE_LEARNING_MS])).toEqual([]);
    // Killed after the bridge could have written the pause: it had to live through the restart.
    expect(bindingViolations([late], [1_000 + PAUSE_LEARNING_MS + 1])).toEqual([late]);
    expect(bindingViolations([late], [999])).toEqual([late]);
  });

  it('counts a request read in a pause as a violation unless the receiver stalled before reading it', () => {
    const pause = { pausedFrom: 1_000, pausedUntil: 3_000 };
    // The receiver's loop ran just before: the request came in the pause.
    expect(isRetryAfterViolation({ arrived: 2_400, loopAliveAt: 2_390 }, pause)).toBe(true);
    // Within the in-flight grace of the 429, or after the pause: none.
    expect(isRetryAfterViolation({ arrived: 1_200, loopAliveAt: 1_190 }, pause)).toBe(false);
    expect(isRetryAfterViolation({ arrived: 3_000, loopAliveAt: 2_990 }, pause)).toBe(false);
    // The receiver stalled from within the grace to 2,400: the request may have come in the
    // grace, sent before the 429, and been read late (a loaded machine starving the receiver).
    expect(isRetryAfterViolation({ arrived: 2_400, loopAliveAt: 1_100 }, pause)).toBe(false);
    // A stall that began after the grace still counts it.
    expect(isRetryAfterViolation({ arrived: 2_400, loopAliveAt: 1_500 }, pause)).toBe(true);
  });

  it('counts a request read in a pause only once the bridge was seen to store it, when it was', () => {
    // The bridge stored the pause 1,800 ms in (it read the 429 late, starved of the CPU): what
    // came before may have been sent before it read the 429.
    const learnedLate = { pausedFrom: 1_000, pausedUntil: 3_000, learnedAt: 2_800 };
    expect(isRetryAfterViolation({ arrived: 2_400, loopAliveAt: 2_390 }, learnedLate)).toBe(false);
    expect(isRetryAfterViolation({ arrived: 2_900, loopAliveAt: 2_890 }, learnedLate)).toBe(true);
    // Stored at once: the in-flight grace still applies, no less.
    const learnedAtOnce = { pausedFrom: 1_000, pausedUntil: 3_000, learnedAt: 1_050 };
    expect(isRetryAfterViolation({ arrived: 1_200, loopAliveAt: 1_190 }, learnedAtOnce)).toBe(
      false,
    );
    expect(isRetryAfterViolation({ arrived: 1_400, loopAliveAt: 1_390 }, learnedAtOnce)).toBe(true);
    // Stored only after the pause: nothing in it could have respected it.
    const learnedAfter = { pausedFrom: 1_000, pausedUntil: 3_000, learnedAt: 3_500 };
    expect(isRetryAfterViolation({ arrived: 2_900, loopAliveAt: 2_890 }, learnedAfter)).toBe(false);
  });

  it('counts the busiest window of arrivals', () => {
    expect(busiestWindow([0, 10_000, 29_999, 30_000, 41_000], 30_000)).toBe(3);
    expect(busiestWindow([0, 10_000, 29_999, 30_000, 31_000], 30_000)).toBe(4);
    expect(busiestWindow([], 30_000)).toBe(0);
  });

  it('counts one change under two ids as a duplicate, not a record that went back and forth', () => {
    const flips = [
      change('evt_A', 1, 'Dirty', 'Clean'),
      change('evt_B', 2, 'Clean', 'Dirty'),
      change('evt_C', 3, 'Dirty', 'Clean'),
    ];
    expect(duplicateIds(flips)).toBe(0);
    expect(revisitedStates(flips)).toBe(1);
    // The same id again (at-least-once) is no duplicate; arrival order does not matter.
    expect(duplicateIds([flips[2]!, flips[0]!, flips[1]!, flips[0]!])).toBe(0);
    // One change re-detected after a crash under a new id is one.
    expect(duplicateIds([...flips, change('evt_D', 4, 'Dirty', 'Clean')])).toBe(1);
    expect(duplicateIds([flips[0]!, change('evt_E', 2, 'Dirty', 'Clean')])).toBe(1);
  });

  it('counts a change that first arrived after a later change of its subject', () => {
    const [a, b, c] = [
      change('evt_A', 1, 'Dirty', 'Clean'),
      change('evt_B', 2, 'Clean', 'Dirty'),
      change('evt_C', 3, 'Dirty', 'Clean'),
    ] as const;
    expect(outOfOrderArrivals([a, b, c])).toBe(0);
    // A redelivery of an earlier id after later ones is at-least-once, not disorder.
    expect(outOfOrderArrivals([a, b, c, a])).toBe(0);
    expect(outOfOrderArrivals([a, c, b])).toBe(1);
    expect(outOfOrderArrivals([{ ...c, subject: 'r2' }, a, b])).toBe(0);
    // One poll's backfill `created` and the change it saw share a detection time: created first.
    const created = { ...change('evt_K', 2, null, 'Clean'), type: 'resource.created' };
    expect(outOfOrderArrivals([a, created, b])).toBe(0);
    expect(outOfOrderArrivals([a, b, created])).toBe(1);
  });

  it('loses nothing through connector faults, receiver failures and SIGKILLs', async () => {
    // 30 s with a SIGKILL every 5-8 s: four or so, as many changes as 40 s at 5/s (~115 expected),
    // and still some 140 connector requests (a dozen faults): the first sync's requests hold most
    // of the budget for the chaos's first 20 s, so a shorter run starves the polls instead.
    const result = await runChaos({
      durationMs: 30_000,
      seed: 11,
      activityPerSecond: 7,
      connectorFaultRate: 0.05,
      receiverFailShare: 0.15,
      killEveryMs: [5_000, 8_000],
      drainTimeoutMs: 60_000,
    });
    console.log(formatChaosResult(result));
    if (result.missing.length > 0) console.log(`missing: ${result.missing.join(', ')}`);
    for (const v of result.violations) {
      // A SIGKILL inside the pause says whether the pause had to live through a restart.
      const kill = result.killedAt.find((at) => at >= v.pausedFrom && at <= v.at);
      const killed =
        kill === undefined ? 'no SIGKILL in between' : `SIGKILL ${kill - v.pausedFrom} ms in`;
      console.log(
        `Retry-After violation: ${v.webhookId} arrived ${v.at - v.pausedFrom} ms into a pause of ${v.pausedUntil - v.pausedFrom} ms (${killed})`,
      );
    }
    expect(result.kills).toBeGreaterThan(1);
    expect(result.expected).toBeGreaterThan(50);
    expect(result.missing).toEqual([]);
    expect(result.endStateMismatches).toEqual([]);
    expect(result.duplicateIds).toBe(0);
    // A subject's changes arrive in detection order, through the SIGKILLs and restarts too.
    expect(result.outOfOrder).toBe(0);
    expect(result.retryAfterViolations).toBe(0);
    expect(result.busiest30s).toBeLessThanOrEqual(200);
    expect(result.rejectedSignatures).toBe(0);
  }, 300_000);
});
