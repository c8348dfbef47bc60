// Summarises a `.heapprofile` written by heap-sampling.mjs: the sampled bytes by file and by
// function (self bytes, where the allocation was made), and, given a function's name (with
// `:line` to pick one of several), the call paths that led to its allocations. With
// HEAP_SAMPLING_KEEP=promoted it tells what outlived the young generation, which is what the
// full collections sweep and what the scavenges copied (docs/benchmarks.md, the thirty-fifth
// stop):
//
//   node bench/profile/heap-summary.mjs heap-1234.heapprofile            # top 40 sites
//   node bench/profile/heap-summary.mjs heap-1234.heapprofile 60          # top 60 sites
//   node bench/profile/heap-summary.mjs heap-1234.heapprofile eventJson   # who called it
//   node bench/profile/heap-summary.mjs heap-1234.heapprofile slice:635 8 # 8 frames of each path
import { readFileSync } from 'node:fs';

const [file, what = '40', depthText = '6'] = process.argv.slice(2);
if (file === undefined) {
  console.error(
    'usage: node bench/profile/heap-summary.mjs <file.heapprofile> [top | name[:line] [depth]]',
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const MB = 1024 * 1024;

/** `name file:line` of a node's frame (lines counted from 1). */
function siteOf(node) {
  const frame = node.callFrame;
  const name = frame.functionName || '(anon)';
  const source = (frame.url || '(native)').replace(/^.*\//, '');
  return {
    name,
    source,
    line: frame.lineNumber + 1,
    label: `${name} ${source}:${frame.lineNumber + 1}`,
  };
}

function walk(node, path, visit) {
  const here = [...path, siteOf(node)];
  visit(node, here);
  for (const child of node.children) walk(child, here, visit);
}

const top = (map, count, total) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, bytes]) =>
        `${(bytes / MB).toFixed(1).padStart(9)} MB ${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${key}`,
    )
    .join('\n');

if (/^\d+$/.test(what)) {
  const bySite = new Map();
  const byFile = new Map();
  let total = 0;
  walk(profile.head, [], (node, path) => {
    if (!node.selfSize) return;
    const site = path.at(-1);
    bySite.set(site.label, (bySite.get(site.label) ?? 0) + node.selfSize);
    byFile.set(site.source, (byFile.get(site.source) ?? 0) + node.selfSize);
    total += node.selfSize;
  });
  console.log(`total ${(total / MB).toFixed(1)} MB sampled`);
  console.log(top(byFile, 20, total));
  console.log('---');
  console.log(top(bySite, Number(what), total));
} else {
  const [name, line] = what.split(':');
  const depth = Number(depthText);
  const paths = new Map();
  let total = 0;
  walk(profile.head, [], (node, path) => {
    const site = path.at(-1);
    if (!node.selfSize || site.name !== name || (line !== undefined && String(site.line) !== line))
      return;
    const key = path
      .slice(-depth)
      .map((step) => step.label)
      .join('\n      <- ');
    paths.set(key, (paths.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  });
  console.log(`${name}${line ? `:${line}` : ''}: ${(total / MB).toFixed(1)} MB sampled`);
  for (const [key, bytes] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 10))
    console.log(`${(bytes / MB).toFixed(1).padStart(9)} MB  ${key}`);
}
