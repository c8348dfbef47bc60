import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const bucketMs = Number(process.argv[3] ?? 500);
const buckets = new Map();
let t = p.startTime;
const tag = (id) => { // find a recognizable frame
  let cur = id; const names = [];
  while (cur !== undefined) { const f = byId.get(cur).callFrame; names.push(f.functionName); cur = parent.get(cur); }
  const has = (re) => names.some((n) => re.test(n));
  if (names[0] === '(idle)') return 'idle';
  if (names[0] === '(garbage collector)') return 'gc';
  if (has(/^computeChanges|detect/)) return 'detect';
  if (has(/sendAttempt|attempt$|interpretResponse|processDispatch|dispatch/i)) return 'dispatch';
  if (has(/publish|toEventBridgeEntry|route/i)) return 'publish';
  if (has(/poll|fetchPage|connector/i)) return 'poll';
  return 'other';
};
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i];
  const b = Math.floor((t - p.startTime) / 1000 / bucketMs);
  const m = buckets.get(b) ?? {}; const k = tag(p.samples[i]); m[k] = (m[k] ?? 0) + p.timeDeltas[i] / 1000; buckets.set(b, m);
}
for (const [b, m] of [...buckets].sort((a, b) => a[0] - b[0])) console.log(String(b * bucketMs).padStart(6), Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join('  '));
