import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHostsFile, readHostsFile } from '../../shared/dns/hosts-file.ts';

describe('parseHostsFile', () => {
  it('gives every name and alias of a line its address, matched without case', () => {
    const table = parseHostsFile(
      '127.0.0.1\tlocalhost Receiver.Test\n10.0.0.5 hooks.lan  # office\n',
    );
    expect(table.get('localhost')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(table.get('receiver.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(table.get('hooks.lan')).toEqual([{ address: '10.0.0.5', family: 4 }]);
    expect(table.has('#')).toBe(false);
    expect(table.has('office')).toBe(false);
  });

  it('gives a name listed on several lines each address once, in the file order', () => {
    const table = parseHostsFile(
      '127.0.0.1 localhost\n::1 localhost ip6-localhost\n127.0.0.1 localhost\n',
    );
    expect(table.get('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(table.get('ip6-localhost')).toEqual([{ address: '::1', family: 6 }]);
  });

  it('passes over comments, blank lines and lines without an IP address first', () => {
    const table = parseHostsFile('# 127.0.0.1 commented\n\n   \nnot-an-ip name\n');
    expect(table.size).toBe(0);
  });
});

describe('readHostsFile', () => {
  it('reads the file at the path given, and gives an empty table when there is none', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hosts-file-'));
    try {
      const path = join(folder, 'hosts');
      writeFileSync(path, '192.0.2.9 receiver.test\n');
      expect((await readHostsFile(path)).get('receiver.test')).toEqual([
        { address: '192.0.2.9', family: 4 },
      ]);
      expect((await readHostsFile(join(folder, 'missing'))).size).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
