/**
 * The body of a two-run report (A/B of models or prompts): the headline figures side by side
 * with B's change, both runs' charts on one scale, latency percentiles of both, and one table
 * row per id matched across the runs (ids in one run only are listed too, marked). A row whose
 * outcome or verify result differs is marked `changed`, and the table can show only those.
 */
import type { Percentiles } from '../latency.js';
import type { BatchRecord } from '../records.js';
import { escapeHtml } from './escape.js';
import { cell, charts, details, outcomeOf, patchCell, verifyText } from './html.js';
import { costText } from '../tally.js';
import { verifyRate, type RunView } from './model.js';
import { ms, num } from './svg.js';
import { comparePaired, measureSentences, type PairedComparison } from './significance.js';

/** How ids pair up across two runs. */
export interface IdMatch {
  both: number;
  onlyA: number;
  onlyB: number;
  /** Matched ids whose outcome or verify result differs. */
  changed: number;
}

function key(r: BatchRecord | undefined): string {
  return r ? `${r.kind}|${r.verify ? (r.verify.ok ? 'pass' : 'fail') : '-'}` : 'none';
}

/** One effective system prompt's lines in one run. */
export interface PromptGroup {
  /** `sha256:<hex>`, or `not recorded` (native agents, records of older versions). */
  digest: string;
  lines: number;
  completed: number;
  verifyPassed: number;
  verifyRan: number;
  /** Summed known cost (USD). */
  costUsd: number;
  /** Runs whose cost is unknown (not in `costUsd`). */
  costUnknown: number;
}

/** A run's records grouped by the system prompt they ran with, largest group first. */
export function promptGroups(records: readonly BatchRecord[]): PromptGroup[] {
  const groups = new Map<string, PromptGroup>();
  for (const r of records) {
    const digest = r.systemPromptDigest ?? 'not recorded';
    let g = groups.get(digest);
    if (!g)
      groups.set(
        digest,
        (g = { digest, lines: 0, completed: 0, verifyPassed: 0, verifyRan: 0, costUsd: 0, costUnknown: 0 }),
      );
    g.lines++;
    if (r.kind === 'result') g.completed++;
    if (r.verify) {
      g.verifyRan++;
      if (r.verify.ok) g.verifyPassed++;
    }
    g.costUsd += r.costUsd ?? 0;
    if (r.costUsd === undefined && r.reason !== 'setup') g.costUnknown++;
  }
  return [...groups.values()].sort((x, y) => y.lines - x.lines || x.digest.localeCompare(y.digest));
}

/** The short form of a digest shown in reports (the first 12 hex digits). */
export function shortDigest(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(7, 19) : digest;
}

/** Both runs' groups by system prompt, one row per (run, prompt). */
function promptTable(a: RunView, b: RunView): string {
  const rows = (['A', 'B'] as const).flatMap((run) =>
    promptGroups((run === 'A' ? a : b).records).map(
      (g) =>
        `<tr><td>${run}</td><td title="${escapeHtml(g.digest)}"><code>${escapeHtml(shortDigest(g.digest))}</code></td><td class="n">${g.lines}</td><td class="n">${g.completed}</td><td class="n">${g.verifyRan ? `${g.verifyPassed} of ${g.verifyRan}` : '–'}</td><td class="n">${escapeHtml(costText(g.costUsd, g.lines - g.costUnknown, g.costUnknown))}</td></tr>`,
    ),
  );
  return `<table class="headline"><thead><tr><th>run</th><th>system prompt</th><th>lines</th><th>completed</th><th>verify passed</th><th>cost</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Pair the records of two runs by id, in A's order then B's extra ids. */
export function matchIds(
  a: RunView,
  b: RunView,
): { rows: { id: string; a?: BatchRecord; b?: BatchRecord }[]; match: IdMatch } {
  const byB = new Map(b.records.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const rows: { id: string; a?: BatchRecord; b?: BatchRecord }[] = [];
  const match: IdMatch = { both: 0, onlyA: 0, onlyB: 0, changed: 0 };
  for (const r of a.records) {
    seen.add(r.id);
    const other = byB.get(r.id);
    if (other) {
      match.both++;
      if (key(r) !== key(other)) match.changed++;
      rows.push({ id: r.id, a: r, b: other });
    } else {
      match.onlyA++;
      rows.push({ id: r.id, a: r });
    }
  }
  for (const r of b.records)
    if (!seen.has(r.id)) {
      match.onlyB++;
      rows.push({ id: r.id, b: r });
    }
  return { rows, match };
}

function delta(a: number | undefined, b: number | undefined, format: (n: number) => string): string {
  if (a === undefined || b === undefined) return '–';
  const d = b - a;
  const pct = a !== 0 ? ` (${d >= 0 ? '+' : ''}${num((d / a) * 100)}%)` : '';
  return `${d >= 0 ? '+' : '−'}${format(Math.abs(d))}${pct}`;
}

/** The headline figures of both runs. */
function headline(a: RunView, b: RunView): string {
  const rows: [string, number | undefined, number | undefined, (n: number) => string, string?][] = [
    ['lines', a.total, b.total, (n) => num(n, 0)],
    ['completed', a.completed, b.completed, (n) => num(n, 0)],
    ['failed', a.failed, b.failed, (n) => num(n, 0)],
    ['verify passed (%)', pct(verifyRate(a)), pct(verifyRate(b)), (n) => num(n)],
    // A run without a known cost reads "unknown" (never $0), and no difference is made up.
    [
      'cost (USD)',
      a.tally.costKnown > 0 ? a.tally.costUsd : undefined,
      b.tally.costKnown > 0 ? b.tally.costUsd : undefined,
      (n) => n.toFixed(4),
      'unknown',
    ],
    ['tokens', a.tally.usage.totalTokens, b.tally.usage.totalTokens, (n) => num(n, 0)],
    ['output tok/s p50', a.outputTokensPerSecond?.p50, b.outputTokensPerSecond?.p50, (n) => num(n)],
    ...percentileRows('first token', a.latency.firstTokenMs, b.latency.firstTokenMs),
    ...percentileRows('total', a.latency.totalMs, b.latency.totalMs),
  ];
  const body = rows
    .map(
      ([label, x, y, f, missing = '–']) =>
        `<tr><td>${escapeHtml(label)}</td><td class="n">${x === undefined ? missing : escapeHtml(f(x))}</td><td class="n">${y === undefined ? missing : escapeHtml(f(y))}</td><td class="n">${escapeHtml(delta(x, y, f))}</td></tr>`,
    )
    .join('');
  return `<table class="headline"><thead><tr><th>measure</th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>${body}</tbody></table>`;
}

function pct(rate: number | undefined): number | undefined {
  return rate === undefined ? undefined : rate * 100;
}

function percentileRows(
  label: string,
  a: Percentiles | undefined,
  b: Percentiles | undefined,
): [string, number | undefined, number | undefined, (n: number) => string][] {
  return (['p50', 'p90', 'p99', 'max'] as const).map((p) => [
    `${label} ${p} (ms)`,
    a?.[p],
    b?.[p],
    (n: number) => num(n),
  ]);
}

function side(r: BatchRecord | undefined, patches: ReadonlyMap<string, string>): string {
  // Five cells either way, so that column positions (and sorting) hold on every row.
  if (!r) return `<td class="muted">not in this run</td>${'<td>–</td>'.repeat(4)}`;
  const v = verifyText(r);
  return `${cell(escapeHtml(outcomeOf(r)), r.kind === 'result' ? 1 : 0, r.kind === 'result' ? undefined : 'bad')}${cell(v.text, v.sort, v.className)}${cell(
    escapeHtml(ms(r.timing?.totalMs)),
    r.timing?.totalMs,
    'n',
  )}${cell(r.costUsd !== undefined ? r.costUsd.toFixed(5) : 'unknown', r.costUsd, 'n')}${patchCell(r, patches)}`;
}

/** The paired comparison on the page: the figures of significance.ts and the verdict. */
function significanceSection(c: PairedComparison): string {
  const pts = (x: number): string => `${x >= 0 ? '+' : '−'}${num(Math.abs(x) * 100)} pts`;
  const verdict = c.significant ? '<b class="ok">a significant difference</b>' : '<b>no significant difference</b>';
  const regressed = c.regressed.length
    ? `<p>Regressed in B: ${c.regressed.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ')}</p>`
    : '';
  return `<p>Over ${c.pairs} paired runs (${c.lines} lines): A ${escapeHtml(num(c.rateA * 100))}%, B ${escapeHtml(num(c.rateB * 100))}%, B − A ${escapeHtml(pts(c.difference))}, 95% paired bootstrap interval ${escapeHtml(pts(c.interval[0]))} to ${escapeHtml(pts(c.interval[1]))}; ${c.onlyA} passed only in A, ${c.onlyB} only in B; McNemar exact p = ${c.pValue.toFixed(4)}: ${verdict}.</p>${regressed}${measureSentences(
    c,
  )
    .map((t) => `<p>${escapeHtml(t)}</p>`)
    .join('')}`;
}

/** The body of a report comparing run A (`a`) with run B (`b`); each side's patches are embedded. */
export function compareBody(a: RunView, b: RunView, generatedAt: string): string {
  const { rows, match } = matchIds(a, b);
  const totalMax = Math.max(0, ...a.totalMsValues, ...b.totalMsValues);
  const firstMax = Math.max(0, ...a.firstTokenMsValues, ...b.firstTokenMsValues);
  const body = rows.map(({ id, a: ra, b: rb }) => {
    const changed = !ra || !rb || key(ra) !== key(rb);
    const dt = ra?.timing && rb?.timing ? rb.timing.totalMs - ra.timing.totalMs : undefined;
    const either = (ra ?? rb)!;
    return `<tr class="${changed ? 'changed' : 'same'}">${cell(escapeHtml(id), id)}${side(ra, a.patches)}${side(rb, b.patches)}${cell(
      escapeHtml(dt === undefined ? '–' : `${dt >= 0 ? '+' : '−'}${ms(Math.abs(dt))}`),
      dt,
      'n',
    )}<td>${details(either, a.prompts.get(id) ?? b.prompts.get(id))}${ra && rb ? details(rb, undefined).replace('<summary>show</summary>', '<summary>show B</summary>') : ''}</td></tr>`;
  });
  const head = [
    'id',
    'A outcome',
    'A verify',
    'A total',
    'A cost',
    'A patch',
    'B outcome',
    'B verify',
    'B total',
    'B cost',
    'B patch',
    'B − A total',
    'details',
  ];
  const sortable = new Set([0, 1, 2, 3, 4, 6, 7, 8, 9, 11]);
  return `<h1>minicode batch report: A/B comparison</h1>
<p class="muted">A: ${escapeHtml(a.dir)}<br>B: ${escapeHtml(b.dir)}<br>generated ${escapeHtml(generatedAt)}</p>
<div class="cards"><div class="card"><b>${match.both}</b><span>ids in both</span></div><div class="card"><b>${match.changed}</b><span>changed outcome or verify</span></div><div class="card"><b>${match.onlyA}</b><span>only in A</span></div><div class="card"><b>${match.onlyB}</b><span>only in B</span></div></div>
<h2>Pass rate: paired comparison</h2>
${significanceSection(comparePaired(a.records, b.records))}
<h2>Aggregate</h2>
${headline(a, b)}
<h2>By system prompt</h2>
<p class="muted">Runs grouped by the digest of the system prompt they sent (minicode's or --system-prompt's text, --append-system-prompt, the project instructions).</p>
${promptTable(a, b)}
<h2>Charts: A</h2>
${charts(a, { totalMax, firstMax })}
<h2>Charts: B</h2>
${charts(b, { totalMax, firstMax })}
<h2>Lines</h2>
<div class="controls"><input type="search" id="filter" placeholder="filter lines (id, outcome, text)" aria-label="filter lines"><label><input type="checkbox" id="only-changed"> only changed</label><span class="muted"><span id="shown">${rows.length}</span> of ${rows.length} ids shown</span></div>
<table id="lines"><thead><tr>${head.map((h, i) => `<th${sortable.has(i) ? ` data-col="${i}"` : ''}>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('\n')}</tbody></table>`;
}
