import { describe, expect, it } from 'vitest';
import { SubjectTurns } from '../../shared/webhooks/subject-turns.ts';

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('SubjectTurns', () => {
  it('makes a subject’s turn wait until the turn taken before it has passed', async () => {
    const turns = new SubjectTurns();
    const first = turns.take('customer/c-1');
    const second = turns.take('customer/c-1');
    expect(await settled(first.ready)).toBe(true);
    expect(await settled(second.ready)).toBe(false);
    first.pass();
    expect(await settled(second.ready)).toBe(true);
  });

  it('never makes one subject wait for another', async () => {
    const turns = new SubjectTurns();
    turns.take('customer/c-1');
    const other = turns.take('customer/c-2');
    expect(await settled(other.ready)).toBe(true);
  });

  it('keeps the order through a turn that passes before its own is ready (an event with no deliveries)', async () => {
    const turns = new SubjectTurns();
    const first = turns.take('s');
    const empty = turns.take('s');
    const third = turns.take('s');
    empty.pass();
    expect(await settled(third.ready)).toBe(false);
    first.pass();
    expect(await settled(third.ready)).toBe(true);
  });

  it('forgets a subject once its last turn has passed, and takes a second pass as none', async () => {
    const turns = new SubjectTurns();
    const only = turns.take('s');
    expect(turns.waitingSubjects).toBe(1);
    only.pass();
    only.pass();
    await settled(only.ready);
    expect(turns.waitingSubjects).toBe(0);
    expect(await settled(turns.take('s').ready)).toBe(true);
  });
});
