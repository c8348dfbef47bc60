import { describe, expect, it } from 'vitest';
import { jsonReporter, terminalReporter } from '../../shared/local/reporter.ts';
import { PLAIN_PALETTE } from '../../shared/local/terminal.ts';
import { makeEvent } from '../publish/fixtures.ts';

function recordingOutput() {
  const writes: string[] = [];
  return { writes, output: { write: (text: string) => writes.push(text), now: () => 0 } };
}

describe('jsonReporter', () => {
  it('writes a batch of events in one write, one JSON line per event in order', () => {
    const { writes, output } = recordingOutput();
    jsonReporter(output).events([makeEvent(1), makeEvent(2), makeEvent(3)]);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.message, line.subject])).toEqual([
      ['event', 'c1'],
      ['event', 'c2'],
      ['event', 'c3'],
    ]);
    expect(lines[0]).toMatchObject({
      level: 'info',
      type: 'customer.updated',
      id: makeEvent(1).id,
    });
  });

  it('writes nothing for no events', () => {
    const { writes, output } = recordingOutput();
    jsonReporter(output).events([]);
    expect(writes).toEqual([]);
  });
});

describe('terminalReporter', () => {
  it('writes a batch of events in one write, one line per event', () => {
    const { writes, output } = recordingOutput();
    terminalReporter(output, PLAIN_PALETTE).events([makeEvent(1), makeEvent(2)]);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('customer.updated');
    expect(lines[1]).toMatch(/c2/);
  });
});
