import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = p.timeDeltas; let total = 0;
const from = Number(process.argv[3] ?? 0), to = Number(process.argv[4] ?? 1e18);
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) { t += dt[i]; if (t - p.startTime < from*1000 || t - p.startTime > to*1000) continue; self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt[i]); total += dt[i]; }
const key = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/main\//, '')}:${n.callFrame.lineNumber}`;
const selfBy = new Map(), incl = new Map();
for (const [id, us] of self) {
  const n = byId.get(id); selfBy.set(key(n), (selfBy.get(key(n)) ?? 0) + us);
  const seen = new Set(); let cur = id;
  while (cur !== undefined) { const k = key(byId.get(cur)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + us); } cur = parent.get(cur); }
}
const idle = [...selfBy].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
console.log('total ms', (total / 1000).toFixed(0), 'idle', (idle / 1000).toFixed(0));
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(100 * v / (total - idle)).toFixed(1).padStart(5)}% ${k}`).join('\n');
console.log('--- self'); console.log(top(selfBy, Number(process.env.N ?? 40)));
console.log('--- inclusive'); console.log(top(incl, Number(process.env.NI ?? 60)));
