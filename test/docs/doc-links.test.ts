import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The README and the docs it sends readers to. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A document's text without its code blocks (a `#` line in a shell sample is no heading). */
function prose(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

function anchorsOf(file: string): Set<string> {
  return new Set([...prose(file).matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

/** Every relative link of a document that does not lead to a file or heading, as `file → link`. */
function brokenLinks(file: string): string[] {
  const links = [...prose(file).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
  return links
    .filter((link) => !/^[a-z]+:/.test(link))
    .filter((link) => {
      const [path = '', fragment] = link.split('#');
      const target = path ? relative(ROOT, normalize(join(ROOT, dirname(file), path))) : file;
      if (!existsSync(join(ROOT, target))) return true;
      return fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(fragment);
    })
    .map((link) => `${file} → ${link}`);
}

describe('links between the README and docs/', () => {
  it('each lead to an existing file and heading', () => {
    expect(DOCUMENTS.flatMap(brokenLinks)).toEqual([]);
  });
});
