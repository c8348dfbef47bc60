import { describe, expect, it } from 'vitest';
import { dispatchAgeAlarmSeconds } from '../../infra/dispatch-age-alarm.ts';
import { SQS_MAX_DELAY_SECONDS } from '../../shared/webhooks/queue.ts';

describe('dispatchAgeAlarmSeconds', () => {
  it('clears the visibility timeout a failed record waits, and one invocation', () => {
    // 180 s timeout: an 18-minute visibility timeout, longer than any delay.
    expect(dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: 180 }, true)).toBe(6 * 180 + 180);
    expect(dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: 180 }, false)).toBe(6 * 180 + 180);
  });

  it('clears the longest delay of a retry on a queue that holds delayed messages, and only there', () => {
    // 60 s timeout: a 6-minute visibility timeout, shorter than SQS's 15-minute delay.
    expect(dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: 60 }, true)).toBe(
      SQS_MAX_DELAY_SECONDS + 60,
    );
    expect(dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: 60 }, false)).toBe(6 * 60 + 60);
  });

  it('stays below the age SQS stops counting a message received three times (two visibility timeouts) from 82 s of timeout up', () => {
    for (const timeout of [82, 120, 180, 300, 900]) {
      const twoVisibilityTimeouts = 2 * 6 * timeout;
      expect(dispatchAgeAlarmSeconds({ dispatcherTimeoutSeconds: timeout }, true)).toBeLessThan(
        twoVisibilityTimeouts,
      );
    }
  });
});
