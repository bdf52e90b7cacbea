/**
 * The Markdown summary `batch report` prints: the headline figures and latency percentiles of
 * one run, or of two side by side. Table cells are made safe for Markdown (pipes and newlines
 * escaped, controls shown) since group names come from records.
 */
import { costText } from '../tally.js';
import type { Percentiles } from '../latency.js';
import { promptGroups, shortDigest, type IdMatch } from './compare.js';
import { verifyRate, type RunView } from './model.js';
import { ms, num } from './svg.js';
import { comparePaired, measureSentences, type PairedComparison } from './significance.js';

function md(text: string): string {
  return text
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/[|<>`*_[\]\\]/g, (c) => `\\${c}`);
}

/** pass@k for every k the run has: `0.62 / 0.81 / 0.88`. */
export function passAtKText(view: RunView): string {
  const values = Object.values(view.evaluation.passAtK);
  return values.length ? values.map((v) => num(v, 3)).join(' / ') : '–';
}

/** The spread between epochs: `0.58 – 0.66 (sd 0.031)`, a dash with one epoch. */
export function spreadText(view: RunView): string {
  const s = view.evaluation.spread;
  return s ? `${num(s.min, 3)} – ${num(s.max, 3)} (sd ${num(s.stdev, 3)})` : '–';
}

function figures(view: RunView): [string, string][] {
  const rate = verifyRate(view);
  const e = view.evaluation;
  const p = (label: string, x: Percentiles | undefined): [string, string] => [
    label,
    x ? `${ms(x.p50)} / ${ms(x.p90)} / ${ms(x.p99)} / ${ms(x.max)}` : '–',
  ];
  return [
    ['lines', `${view.total}`],
    ['completed / failed / pending', `${view.completed} / ${view.failed} / ${view.pending}`],
    ['runs passed', `${e.passed} of ${e.runs} (${num(e.passRate * 100)}%)`],
    [`pass@1..${e.epochs}`, passAtKText(view)],
    ['epoch pass rate spread', spreadText(view)],
    [
      'verify passed',
      rate === undefined
        ? '–'
        : `${view.tally.verifyPassed} of ${view.tally.verifyPassed + view.tally.verifyFailed} (${num(rate * 100)}%)`,
    ],
    ['cost', costText(view.tally.costUsd, view.tally.costKnown, view.tally.costUnknown)],
    ['tokens in / out', `${num(view.tally.usage.inputTokens, 0)} / ${num(view.tally.usage.outputTokens, 0)}`],
    p('first token p50 / p90 / p99 / max', view.latency.firstTokenMs),
    p('total p50 / p90 / p99 / max', view.latency.totalMs),
    ['output tok/s p50', num(view.outputTokensPerSecond?.p50)],
  ];
}

/** Markdown of one run. */
export function singleRunMarkdown(view: RunView, htmlPath: string): string {
  const rows = figures(view).map(([k, v]) => `| ${md(k)} | ${md(v)} |`);
  const groups = Object.entries(view.latency.byModel).map(
    ([g, l]) => `| ${md(g)} | ${md(ms(l.firstTokenMs?.p50))} | ${md(ms(l.totalMs?.p50))} | ${md(ms(l.totalMs?.p99))} |`,
  );
  const byGroup = (view.evaluation.byGroup ?? []).map(
    (g) =>
      `| ${md(g.group)} | ${g.lines} | ${g.passed} of ${g.runs} (${num(g.passRate * 100)}%) | ${md(
        Object.values(g.passAtK)
          .map((v) => num(v, 3))
          .join(' / '),
      )} | ${md(costText(g.costUsd, g.runs - g.costUnknownRuns, g.costUnknownRuns))} |`,
  );
  return [
    `# Batch report: ${md(view.dir)}`,
    '',
    '| measure | value |',
    '|---|---|',
    ...rows,
    '',
    ...(byGroup.length
      ? ['| agent / model | lines | runs passed | pass@1..k | cost |', '|---|---:|---:|---:|---:|', ...byGroup, '']
      : []),
    ...(groups.length
      ? ['| provider/model | first token p50 | total p50 | total p99 |', '|---|---:|---:|---:|', ...groups, '']
      : []),
    `HTML report: ${md(htmlPath)}`,
    '',
  ].join('\n');
}

/** The paired comparison as a sentence: the difference, its interval, McNemar's p, and the verdict. */
export function significanceText(c: PairedComparison): string {
  const pct = (x: number): string => `${x >= 0 ? '+' : '−'}${num(Math.abs(x) * 100)} pts`;
  const verdict = c.significant ? 'a significant difference' : 'no significant difference';
  const regressed = c.regressed.length
    ? ` Regressed in B: ${c.regressed.slice(0, 20).map(md).join(', ')}${c.regressed.length > 20 ? `, … (${c.regressed.length})` : ''}.`
    : '';
  const measures = measureSentences(c).map((t) => ` ${t.replace(/(a|no) significant difference/, '**$&**')}`);
  return `Pass rate over ${c.pairs} paired runs (${c.lines} lines): A ${num(c.rateA * 100)}%, B ${num(c.rateB * 100)}%, B − A ${pct(c.difference)} (95% paired bootstrap interval ${pct(c.interval[0])} to ${pct(c.interval[1])}); ${c.onlyA} passed only in A, ${c.onlyB} only in B, McNemar exact p = ${c.pValue.toFixed(4)}: **${verdict}**.${regressed}${measures.join('')}`;
}

/** Markdown of two runs side by side. */
export function compareMarkdown(a: RunView, b: RunView, match: IdMatch, htmlPath: string): string {
  const fa = figures(a);
  const fb = figures(b);
  const rows = fa.map(([k, v], i) => `| ${md(k)} | ${md(v)} | ${md(fb[i]?.[1] ?? '–')} |`);
  return [
    `# Batch comparison`,
    '',
    `A: ${md(a.dir)}  `,
    `B: ${md(b.dir)}`,
    '',
    `${match.both} ids in both (${match.changed} changed outcome or verify), ${match.onlyA} only in A, ${match.onlyB} only in B.`,
    '',
    significanceText(comparePaired(a.records, b.records)),
    '',
    '| measure | A | B |',
    '|---|---|---|',
    ...rows,
    '',
    '| run | system prompt | lines | completed | verify passed | cost |',
    '|---|---|---:|---:|---:|---:|',
    ...(['A', 'B'] as const).flatMap((run) =>
      promptGroups((run === 'A' ? a : b).records).map(
        (g) =>
          `| ${run} | ${md(shortDigest(g.digest))} | ${g.lines} | ${g.completed} | ${g.verifyRan ? `${g.verifyPassed} of ${g.verifyRan}` : '–'} | ${costText(g.costUsd, g.lines - g.costUnknown, g.costUnknown)} |`,
      ),
    ),
    '',
    `HTML report: ${md(htmlPath)}`,
    '',
  ].join('\n');
}
