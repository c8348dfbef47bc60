import { describe, expect, it } from 'vitest';
import { busiestWindow, formatChaosResult, runChaos } from './run-chaos.ts';

describe('whole-bridge chaos', () => {
  it('counts the busiest window of arrivals', () => {
    expect(busiestWindow([0, 10_000, 29_999, 30_000, 41_000], 30_000)).toBe(3);
    expect(busiestWindow([0, 10_000, 29_999, 30_000, 31_000], 30_000)).toBe(4);
    expect(busiestWindow([], 30_000)).toBe(0);
  });

  it('loses nothing through connector faults, receiver failures and SIGKILLs', async () => {
    const result = await runChaos({
      durationMs: 40_000,
      seed: 11,
      activityPerSecond: 5,
      connectorFaultRate: 0.05,
      receiverFailShare: 0.15,
      killEveryMs: [7_000, 12_000],
      drainTimeoutMs: 60_000,
    });
    console.log(formatChaosResult(result));
    if (result.missing.length > 0) console.log(`missing: ${result.missing.join(', ')}`);
    expect(result.kills).toBeGreaterThan(1);
    expect(result.expected).toBeGreaterThan(50);
    expect(result.missing).toEqual([]);
    expect(result.duplicateIds).toBe(0);
    expect(result.retryAfterViolations).toBe(0);
    expect(result.busiest30s).toBeLessThanOrEqual(200);
    expect(result.rejectedSignatures).toBe(0);
  }, 300_000);
});
