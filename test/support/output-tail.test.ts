import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OUTPUT_TAIL_CHARS, OutputTail } from './output-tail.ts';

/** A node child that writes `script`'s output and exits 1. */
function child(script: string) {
  return spawn(process.execPath, ['-e', `${script}; process.exitCode = 1`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('OutputTail', () => {
  it('keeps the end of what a child wrote, its last writes included', async () => {
    const failing = child("process.stderr.write('x'.repeat(5000) + 'Jiří failed')");
    const tail = new OutputTail();
    tail.follow(failing.stderr);
    await once(failing, 'exit');
    const text = await tail.final();
    expect(text).toHaveLength(OUTPUT_TAIL_CHARS);
    expect(text.endsWith('xJiří failed')).toBe(true);
  });

  it("follows one child after another, the second's output after the first's", async () => {
    const tail = new OutputTail();
    tail.follow(undefined);
    for (const word of ['first', 'second']) {
      const run = child(`process.stdout.write('${word};')`);
      tail.follow(run.stdout);
      await once(run, 'exit');
      await tail.final();
    }
    expect(tail.read()).toBe('first;second;');
  });
});
