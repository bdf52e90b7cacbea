/**
 * The body of a one-run report: headline cards, charts, latency percentiles, per-model figures
 * and the table of lines (outcome, verify, timing, tokens, cost, session, the patch embedded,
 * the transcript, with the prompt, the answer and the verify output behind a disclosure). An
 * unknown cost reads "unknown", never $0. Pure: strings in, string out.
 */
import type { LatencyGroup, Percentiles } from '../latency.js';
import type { BatchRecord } from '../records.js';
import { recordTokens } from '../throughput.js';
import { attemptOf } from '../attempts.js';
import { passedOf } from '../evaluation.js';
import { costText } from '../tally.js';
import { clip, escapeHtml, patchFileOf } from './escape.js';
import type { TranscriptEntry } from './transcripts.js';
import { verifyRate, type RunView } from './model.js';
import { histogram, ms, num, stackedBars, throughputChart } from './svg.js';

/** Characters of a line's answer, prompt or verify output shown in the report. */
export const TEXT_CHARS = 2000;

/** A `<td>` with a sort value. */
export function cell(text: string, sortValue?: number | string, className?: string): string {
  const v = sortValue === undefined ? '' : ` data-v="${escapeHtml(sortValue)}"`;
  return `<td${className ? ` class="${className}"` : ''}${v}>${text}</td>`;
}

/** Headline figures as cards. */
export function cards(view: RunView): string {
  const rate = verifyRate(view);
  const items: [string, string][] = [
    ['lines', num(view.total, 0)],
    ['completed', num(view.completed, 0)],
    ['failed', num(view.failed, 0)],
    ['pending', num(view.pending, 0)],
    ['verify passed', rate === undefined ? '–' : `${num(rate * 100)}%`],
    ['cost', costText(view.tally.costUsd, view.tally.costKnown, view.tally.costUnknown)],
    ['tokens', num(view.tally.usage.totalTokens, 0)],
    ['total p50', ms(view.latency.totalMs?.p50)],
    ['first token p50', ms(view.latency.firstTokenMs?.p50)],
    ['output tok/s p50', num(view.outputTokensPerSecond?.p50)],
    ['duration', ms(view.durationMs)],
    ['runs/s', num(view.runsPerSecond, 2)],
  ];
  return `<div class="cards">${items.map(([k, v]) => `<div class="card"><b>${escapeHtml(v)}</b><span>${escapeHtml(k)}</span></div>`).join('')}</div>`;
}

function percentileCells(p: Percentiles | undefined): string {
  if (!p) return '<td class="n">0</td><td class="n">–</td><td class="n">–</td><td class="n">–</td><td class="n">–</td>';
  return [p.count, p.p50, p.p90, p.p99, p.max]
    .map((v, i) => `<td class="n">${escapeHtml(i === 0 ? num(v, 0) : ms(v))}</td>`)
    .join('');
}

/** The latency percentile table, overall and per provider/model. */
export function latencyTable(view: RunView): string {
  const rows: [string, LatencyGroup][] = [['all lines', view.latency], ...Object.entries(view.latency.byModel)];
  const body = rows
    .flatMap(([group, g]) => [
      `<tr><td>${escapeHtml(group)}</td><td>time to first token</td>${percentileCells(g.firstTokenMs)}</tr>`,
      `<tr><td>${escapeHtml(group)}</td><td>total</td>${percentileCells(g.totalMs)}</tr>`,
    ])
    .join('');
  return `<table class="latency"><thead><tr><th>group</th><th>measure</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></thead><tbody>${body}</tbody></table>
<p class="muted">Nearest-rank percentiles: the value at rank ceil(p/100 × n) of the sorted values, always an observed value.</p>`;
}

/** Per provider/model: lines, completion, verify, tokens, cost. */
export function modelTable(view: RunView): string {
  const body = view.byModel
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.group)}</td><td class="n">${m.lines}</td><td class="n">${m.completed}</td><td class="n">${m.verifyPassed}/${m.verifyPassed + m.verifyFailed}</td><td class="n">${escapeHtml(num(m.tokens, 0))}</td><td class="n">${escapeHtml(costText(m.costUsd, m.lines - m.costUnknown, m.costUnknown))}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>provider/model</th><th>lines</th><th>completed</th><th>verify passed</th><th>tokens</th><th>cost</th></tr></thead><tbody>${body}</tbody></table>`;
}

/** The charts of one run. */
export function charts(view: RunView, scale: { totalMax?: number; firstMax?: number } = {}): string {
  const outcome = stackedBars('Outcomes and verify', [
    {
      label: 'outcome',
      parts: [
        { label: 'completed', value: view.completed, color: 'ok' },
        { label: 'failed', value: view.failed, color: 'bad' },
        { label: 'pending', value: view.pending, color: 'pending' },
      ],
    },
    {
      label: 'verify',
      parts: [
        { label: 'verify passed', value: view.tally.verifyPassed, color: 'ok' },
        { label: 'verify failed', value: view.tally.verifyFailed, color: 'bad' },
      ],
    },
  ]);
  return `<div class="charts">${histogram('Total time per line', view.totalMsValues, view.latency.totalMs, scale.totalMax !== undefined ? { maxValue: scale.totalMax } : {})}${histogram(
    'Time to first token',
    view.firstTokenMsValues,
    view.latency.firstTokenMs,
    scale.firstMax !== undefined ? { maxValue: scale.firstMax } : {},
  )}${outcome}</div>
<div class="charts">${throughputChart('Throughput over time', view.throughput)}</div>`;
}

/** Outcome text of a record: `completed`, or the error code. */
export function outcomeOf(r: BatchRecord): string {
  return r.kind === 'result' ? r.outcome : `${r.outcome} (${r.error?.code ?? r.reason})`;
}

/** Verify cell content: passed / failed with exit code, or a dash. */
export function verifyText(r: BatchRecord | undefined): {
  text: string;
  sort: number | undefined;
  className: string | undefined;
} {
  if (!r?.verify) return { text: '–', sort: undefined, className: undefined };
  return r.verify.ok
    ? { text: 'passed', sort: 1, className: 'ok' }
    : {
        text: `failed${r.verify.exitCode !== undefined ? ` (exit ${r.verify.exitCode})` : ''}`,
        sort: 0,
        className: 'bad',
      };
}

/** The scorers' verdicts of a record (`includes ✓ regex ✗ model 8 ✓`), each detail (a failure's, the grader's reasoning) in a tooltip; a dash without scorers. */
export function scoresCell(r: BatchRecord): string {
  const scores = r.scores ?? [];
  if (scores.length === 0) return '<td>–</td>';
  const passed = scores.filter((s) => s.passed).length;
  const text = scores
    .map(
      (s) =>
        `<span class="${s.passed ? 'ok' : 'bad'}" title="${escapeHtml(s.detail ?? 'passed')}">${escapeHtml(s.scorer)}${s.score !== undefined ? ` ${s.score}` : ''}${s.error ? ' error' : ''} ${s.passed ? '✓' : '✗'}</span>`,
    )
    .join(' ');
  return `<td data-v="${passed / scores.length}">${text}</td>`;
}

/**
 * A line's patch, embedded (a shared report.html carries its patches: no link to break): the
 * count of added and removed lines, and the diff behind a disclosure, each line with its tone.
 */
export function patchCell(r: BatchRecord | undefined, patches: ReadonlyMap<string, string>): string {
  if (patchFileOf(r?.patch) === undefined) return '<td>–</td>';
  const text = patches.get(r!.patch as string);
  if (text === undefined) return `<td class="muted">${escapeHtml(r!.patch)} not found</td>`;
  const lines = text.replace(/\n$/, '').split('\n');
  let added = 0;
  let removed = 0;
  const body = lines.map((l) => {
    const tone =
      l.startsWith('+++') || l.startsWith('---')
        ? 'file'
        : l.startsWith('+')
          ? 'add'
          : l.startsWith('-')
            ? 'del'
            : l.startsWith('@@')
              ? 'hunk'
              : '';
    if (tone === 'add') added++;
    else if (tone === 'del') removed++;
    return tone ? `<span class="${tone}">${escapeHtml(l)}</span>` : escapeHtml(l);
  });
  return `<td data-v="${added + removed}"><details class="patch"><summary>+${added} −${removed}</summary><pre class="diff">${body.join('\n')}</pre></details></td>`;
}

/** One step of a transcript. */
function transcriptItem(e: TranscriptEntry): string {
  switch (e.role) {
    case 'user':
    case 'assistant':
      return `<li class="${e.role}"><b>${e.role}</b><pre>${escapeHtml(e.text)}</pre></li>`;
    case 'call':
      return `<li class="call"><b>⏺ ${escapeHtml(e.name)}</b><pre>${escapeHtml(e.arguments)}</pre></li>`;
    case 'result':
      return `<li class="result${e.isError ? ' bad' : ''}"><b>${escapeHtml(e.name)} ${e.isError ? 'error' : 'result'}</b><pre>${escapeHtml(e.text)}</pre></li>`;
    case 'more':
      return `<li class="muted">… ${e.count} more</li>`;
  }
}

/** A line's transcript (its stored session's messages and tool calls), behind a disclosure. */
export function transcriptCell(r: BatchRecord | undefined, view: Pick<RunView, 'transcripts' | 'storeDir'>): string {
  if (!r?.sessionId) return '<td>–</td>';
  const entries = view.transcripts.get(r.sessionId);
  if (!entries)
    return `<td class="muted">not in the store${view.storeDir !== undefined ? ` at ${escapeHtml(view.storeDir)}` : ''}</td>`;
  const calls = entries.filter((e) => e.role === 'call').length;
  const messages = entries.filter((e) => e.role === 'user' || e.role === 'assistant').length;
  return `<td><details class="transcript"><summary>${messages} message${messages === 1 ? '' : 's'}, ${calls} tool call${calls === 1 ? '' : 's'}</summary><ol class="transcript">${entries.map(transcriptItem).join('')}</ol></details></td>`;
}

/** The disclosure with the prompt, the answer or error, and the verify output. */
export function details(r: BatchRecord, prompt: string | undefined): string {
  const parts: string[] = [];
  if (prompt !== undefined) parts.push(`<b>prompt</b><pre>${escapeHtml(clip(prompt, TEXT_CHARS))}</pre>`);
  if (r.kind === 'result') parts.push(`<b>answer</b><pre>${escapeHtml(clip(r.finalText ?? '', TEXT_CHARS))}</pre>`);
  else
    parts.push(
      `<b>error</b><pre>${escapeHtml(`${r.error?.code ?? ''}: ${clip(r.error?.message ?? '', TEXT_CHARS)}`)}</pre>`,
    );
  if (r.verify)
    parts.push(`<b>verify output (tail)</b><pre>${escapeHtml(clip(r.verify.outputTail ?? '', TEXT_CHARS))}</pre>`);
  return `<details><summary>show</summary>${parts.join('')}</details>`;
}

/** The table of lines of one run. */
export function linesTable(view: RunView): string {
  const head = [
    'id',
    'attempt',
    'passed',
    'outcome',
    'verify',
    'scores',
    'first token',
    'total',
    'model',
    'tool',
    'queue',
    'tokens in/out',
    'tok/s',
    'cost (USD)',
    'session',
    'patch',
    'transcript',
    'details',
  ];
  const unsorted = new Set(['transcript', 'details']);
  const rows = view.records.map((r) => {
    const t = r.timing;
    const v = verifyText(r);
    const passed = passedOf(r);
    return `<tr class="${r.kind === 'result' ? 'completed' : 'failed'}">${cell(escapeHtml(r.id), r.id)}${cell(String(attemptOf(r)), attemptOf(r), 'n')}${cell(
      passed ? 'yes' : 'no',
      passed ? 1 : 0,
      passed ? 'ok' : 'bad',
    )}${cell(escapeHtml(outcomeOf(r)), r.kind === 'result' ? 1 : 0, 'outcome')}${cell(v.text, v.sort, v.className)}${scoresCell(r)}${cell(escapeHtml(ms(t?.firstTokenMs)), t?.firstTokenMs, 'n')}${cell(escapeHtml(ms(t?.totalMs)), t?.totalMs, 'n')}${cell(escapeHtml(ms(t?.modelMs)), t?.modelMs, 'n')}${cell(
      escapeHtml(ms(t?.toolMs)),
      t?.toolMs,
      'n',
    )}${cell(escapeHtml(ms(t?.queueMs)), t?.queueMs, 'n')}${cell(
      escapeHtml(r.usage ? `${num(r.usage.inputTokens, 0)} / ${num(r.usage.outputTokens, 0)}` : '–'),
      recordTokens(r.usage),
      'n',
    )}${cell(escapeHtml(num(r.outputTokensPerSecond)), r.outputTokensPerSecond, 'n')}${cell(r.costUsd !== undefined ? r.costUsd.toFixed(5) : 'unknown', r.costUsd, 'n')}${cell(
      escapeHtml(r.sessionId ?? '–'),
    )}${patchCell(r, view.patches)}${transcriptCell(r, view)}<td>${details(r, view.prompts.get(r.id))}</td></tr>`;
  });
  return `<div class="controls"><input type="search" id="filter" placeholder="filter lines (id, outcome, text)" aria-label="filter lines"><span class="muted"><span id="shown">${rows.length}</span> of ${rows.length} lines shown; click a column to sort</span></div>
<table id="lines"><thead><tr>${head.map((h, i) => `<th${unsorted.has(h) ? '' : ` data-col="${i}"`}>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

/**
 * Pass rate, pass@k for every k up to the epochs, each epoch's pass rate and their spread, and
 * each line's pass rate over its attempts (lib/batch/evaluation.ts states the rule and the estimator).
 */
export function evaluationSection(view: RunView): string {
  const e = view.evaluation;
  const passAt = Object.entries(e.passAtK)
    .map(([k, v]) => `<tr><td>pass@${escapeHtml(k)}</td><td class="n">${escapeHtml(num(v, 3))}</td></tr>`)
    .join('');
  const epochs = e.byEpoch
    .map(
      (x) =>
        `<tr><td>${x.attempt}</td><td class="n">${x.runs}</td><td class="n">${x.passed}</td><td class="n">${escapeHtml(num(x.rate * 100))}%</td></tr>`,
    )
    .join('');
  const lines = e.lines
    .map(
      (l) =>
        `<tr>${cell(escapeHtml(l.id), l.id)}${cell(String(l.runs), l.runs, 'n')}${cell(String(l.passed), l.passed, 'n')}${cell(`${escapeHtml(num(l.rate * 100))}%`, l.rate, 'n')}</tr>`,
    )
    .join('');
  const spread = e.spread
    ? `; epochs' pass rates ${num(e.spread.min, 3)} to ${num(e.spread.max, 3)}, standard deviation ${num(e.spread.stdev, 3)}`
    : '';
  const groups = e.byGroup
    ? `<h3>By agent and model</h3><table><thead><tr><th>agent / model</th><th>lines</th><th>runs</th><th>passed</th><th>rate</th><th>pass@k</th><th>cost</th></tr></thead><tbody>${e.byGroup
        .map(
          (g) =>
            `<tr>${cell(escapeHtml(g.group), g.group)}${cell(String(g.lines), g.lines, 'n')}${cell(String(g.runs), g.runs, 'n')}${cell(String(g.passed), g.passed, 'n')}${cell(`${escapeHtml(num(g.passRate * 100))}%`, g.passRate, 'n')}<td>${escapeHtml(
              Object.values(g.passAtK)
                .map((v) => num(v, 3))
                .join(' / '),
            )}</td>${cell(escapeHtml(costText(g.costUsd, g.runs - g.costUnknownRuns, g.costUnknownRuns)), g.costUsd, 'n')}</tr>`,
        )
        .join('')}</tbody></table>`
    : '';
  return `<p>${e.passed} of ${e.runs} runs passed (${escapeHtml(num(e.passRate * 100))}%) over ${e.epochs} epoch(s)${escapeHtml(spread)}; ${e.unstableLines} line(s) passed some attempts and failed others.</p>
<p class="muted">A run passes when it completed, its verify command (when one ran) exited 0 and every scorer of its expect passed. pass@k is the unbiased estimator 1 − C(n−c, k) / C(n, k) over each line's n attempts with c passes, averaged over the lines with at least k attempts.</p>
<div class="charts"><table><thead><tr><th>k</th><th>pass@k</th></tr></thead><tbody>${passAt}</tbody></table>
<table><thead><tr><th>epoch</th><th>runs</th><th>passed</th><th>rate</th></tr></thead><tbody>${epochs}</tbody></table></div>
${groups}
<details><summary>pass rate per line</summary><table><thead><tr><th>id</th><th>attempts</th><th>passed</th><th>rate</th></tr></thead><tbody>${lines}</tbody></table></details>`;
}

/** The whole body of a one-run report. */
export function singleRunBody(view: RunView, generatedAt: string): string {
  const warn =
    view.unreadable > 0
      ? `<p class="bad">${view.unreadable} line(s) of the record files were not readable records and are left out.</p>`
      : '';
  return `<h1>minicode batch report</h1>
<p class="muted">${escapeHtml(view.dir)} · generated ${escapeHtml(generatedAt)}</p>${warn}
${cards(view)}
<h2>Charts</h2>
${charts(view)}
<h2>Evaluation</h2>
${evaluationSection(view)}
<h2>Latency</h2>
${latencyTable(view)}
<h2>By provider and model</h2>
${modelTable(view)}
<h2>Lines</h2>
${linesTable(view)}`;
}
