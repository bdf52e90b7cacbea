import fs from 'node:fs';
const file = process.argv[2];
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
p.samples.forEach((id, i) => { const d = dt[i] ?? 0; total += d; self.set(id, (self.get(id) ?? 0) + d); });
// aggregate self time by url (package)
const byUrl = new Map();
for (const [id, t] of self) { const n = byId.get(id); let u = n.callFrame.url || n.callFrame.functionName || '(native)'; u = u.replace(/.*node_modules\//, 'nm:').replace(/.*\/dist\//, 'dist/'); const key = u.startsWith('nm:') ? u.split('/').slice(0, u.startsWith('nm:@') ? 2 : 1).join('/') : u; byUrl.set(key, (byUrl.get(key) ?? 0) + t); }
console.log('total ms', (total / 1000).toFixed(0));
[...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([k, v]) => console.log((v / 1000).toFixed(1).padStart(7), k));
