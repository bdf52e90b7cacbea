/**
 * The report's charts as inline SVG strings (no script, no network): a latency histogram with
 * its percentiles marked, stacked bars for outcomes and verify results, and the throughput
 * series. Labels pass through {@link escapeHtml}; numbers are formatted here.
 */
import type { Percentiles } from '../latency.js';
import type { ThroughputSeries } from '../throughput.js';
import { escapeHtml } from './escape.js';

const COLORS = {
  ok: '#2f8f46',
  bad: '#c8412f',
  pending: '#9aa0a6',
  bar: '#4a7bd0',
  alt: '#d08a2f',
  axis: '#555',
  grid: '#e3e3e3',
};

/** A compact number: 1234 -> 1,234; 0.5 -> 0.5; 12345.6 -> 12,346. */
export function num(value: number | undefined, digits = 1): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  const d = abs >= 100 ? 0 : abs >= 10 ? Math.min(digits, 1) : digits;
  return value.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });
}

/** Milliseconds as ms or s. */
export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value >= 10_000 ? `${num(value / 1000)} s` : `${num(value)} ms`;
}

function svg(width: number, height: number, title: string, body: string): string {
  return `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>${escapeHtml(title)}</title>${body}</svg>`;
}

/** A histogram of `values` (20 bins from 0 to the max) with p50/p90/p99 as vertical lines. */
export function histogram(
  title: string,
  values: readonly number[],
  p: Percentiles | undefined,
  options: { maxValue?: number } = {},
): string {
  const width = 460;
  const height = 200;
  const left = 40;
  const bottom = 30;
  const plotW = width - left - 10;
  const plotH = height - bottom - 24;
  if (values.length === 0)
    return svg(
      width,
      60,
      title,
      `<text x="10" y="20" font-size="13">${escapeHtml(title)}</text><text x="10" y="44" font-size="12" fill="${COLORS.axis}">no data</text>`,
    );
  const max = Math.max(options.maxValue ?? 0, ...values, 1e-9);
  const binCount = 20;
  const bins = new Array<number>(binCount).fill(0);
  for (const v of values) bins[Math.min(binCount - 1, Math.floor((v / max) * binCount))]!++;
  const top = Math.max(...bins, 1);
  const bw = plotW / binCount;
  const parts: string[] = [`<text x="10" y="16" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`];
  bins.forEach((count, i) => {
    const h = (count / top) * plotH;
    parts.push(
      `<rect x="${(left + i * bw + 1).toFixed(1)}" y="${(24 + plotH - h).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS.bar}"><title>${count} line(s), ${escapeHtml(ms((i * max) / binCount))} to ${escapeHtml(ms(((i + 1) * max) / binCount))}</title></rect>`,
    );
  });
  parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${24 + plotH}" y2="${24 + plotH}" stroke="${COLORS.axis}"/>`);
  parts.push(`<text x="${left}" y="${height - 10}" font-size="11" fill="${COLORS.axis}">0</text>`);
  parts.push(
    `<text x="${left + plotW}" y="${height - 10}" font-size="11" fill="${COLORS.axis}" text-anchor="end">${escapeHtml(ms(max))}</text>`,
  );
  parts.push(`<text x="${left - 4}" y="32" font-size="11" fill="${COLORS.axis}" text-anchor="end">${top}</text>`);
  if (p) {
    for (const [label, v, color] of [
      ['p50', p.p50, COLORS.ok],
      ['p90', p.p90, COLORS.alt],
      ['p99', p.p99, COLORS.bad],
    ] as const) {
      const x = left + (v / max) * plotW;
      parts.push(
        `<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="24" y2="${24 + plotH}" stroke="${color}" stroke-dasharray="4 2"/>`,
      );
      // Labels near the right edge go on the line's left, so they stay inside the chart.
      const anchor = x > left + plotW * 0.7 ? ` text-anchor="end"` : '';
      const tx = anchor ? x - 3 : x + 3;
      parts.push(
        `<text x="${tx.toFixed(1)}" y="${label === 'p50' ? 34 : label === 'p90' ? 46 : 58}" font-size="10" fill="${color}"${anchor}>${label} ${escapeHtml(ms(v))}</text>`,
      );
    }
  }
  return svg(width, height, title, parts.join(''));
}

/** One horizontal stacked bar per row (e.g. outcomes: completed / failed / pending). */
export function stackedBars(
  title: string,
  rows: { label: string; parts: { label: string; value: number; color: keyof typeof COLORS }[] }[],
): string {
  const width = 460;
  const labelW = 110;
  const barW = width - labelW - 20;
  const rowH = 28;
  const height = 30 + rows.length * rowH + 22;
  const out: string[] = [`<text x="10" y="16" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`];
  rows.forEach((row, i) => {
    const y = 28 + i * rowH;
    const total = row.parts.reduce((s, p) => s + p.value, 0);
    out.push(`<text x="10" y="${y + 15}" font-size="12">${escapeHtml(row.label)}</text>`);
    let x = labelW;
    for (const part of row.parts) {
      const w = total > 0 ? (part.value / total) * barW : 0;
      if (w > 0)
        out.push(
          `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="20" fill="${COLORS[part.color]}"><title>${escapeHtml(part.label)}: ${part.value}</title></rect>`,
        );
      if (w > 34)
        out.push(`<text x="${(x + 4).toFixed(1)}" y="${y + 14}" font-size="11" fill="#fff">${part.value}</text>`);
      x += w;
    }
    if (total === 0) out.push(`<text x="${labelW}" y="${y + 14}" font-size="11" fill="${COLORS.axis}">none</text>`);
  });
  const legend = [...new Map(rows.flatMap((r) => r.parts.map((p) => [p.label, p.color] as const))).entries()];
  let lx = 10;
  for (const [label, color] of legend) {
    out.push(
      `<rect x="${lx}" y="${height - 16}" width="10" height="10" fill="${COLORS[color]}"/><text x="${lx + 14}" y="${height - 7}" font-size="11">${escapeHtml(label)}</text>`,
    );
    lx += 22 + label.length * 6;
  }
  return svg(width, height, title, out.join(''));
}

/** Lines finished per interval (completed and failed stacked) with tokens per interval as a line. */
export function throughputChart(title: string, series: ThroughputSeries): string {
  const width = 940;
  const height = 220;
  const left = 44;
  const right = 60;
  const plotW = width - left - right;
  const plotH = height - 30 - 34;
  const b = series.buckets;
  if (b.length === 0)
    return svg(
      width,
      60,
      title,
      `<text x="10" y="20" font-size="13">${escapeHtml(title)}</text><text x="10" y="44" font-size="12" fill="${COLORS.axis}">no records finished in this run's window</text>`,
    );
  const topLines = Math.max(1, ...b.map((x) => x.completed + x.failed));
  const topTokens = Math.max(1, ...b.map((x) => x.tokens));
  const bw = plotW / b.length;
  const y0 = 30 + plotH;
  const out: string[] = [`<text x="10" y="16" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`];
  b.forEach((bucket, i) => {
    const x = left + i * bw;
    const hOk = (bucket.completed / topLines) * plotH;
    const hBad = (bucket.failed / topLines) * plotH;
    const tip = `<title>${escapeHtml(ms(bucket.startMs))}: ${bucket.completed} completed, ${bucket.failed} failed, ${bucket.tokens} tokens</title>`;
    out.push(
      `<rect x="${(x + 1).toFixed(1)}" y="${(y0 - hOk).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${hOk.toFixed(1)}" fill="${COLORS.ok}">${tip}</rect>`,
    );
    if (hBad > 0)
      out.push(
        `<rect x="${(x + 1).toFixed(1)}" y="${(y0 - hOk - hBad).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${hBad.toFixed(1)}" fill="${COLORS.bad}">${tip}</rect>`,
      );
  });
  const points = b
    .map(
      (bucket, i) => `${(left + (i + 0.5) * bw).toFixed(1)},${(y0 - (bucket.tokens / topTokens) * plotH).toFixed(1)}`,
    )
    .join(' ');
  out.push(`<polyline points="${points}" fill="none" stroke="${COLORS.alt}" stroke-width="2"/>`);
  out.push(`<line x1="${left}" x2="${left + plotW}" y1="${y0}" y2="${y0}" stroke="${COLORS.axis}"/>`);
  out.push(`<text x="${left - 4}" y="38" font-size="11" text-anchor="end" fill="${COLORS.ok}">${topLines}</text>`);
  out.push(
    `<text x="${left + plotW + 4}" y="38" font-size="11" fill="${COLORS.alt}">${escapeHtml(num(topTokens, 0))}</text>`,
  );
  out.push(`<text x="${left}" y="${y0 + 14}" font-size="11" fill="${COLORS.axis}">0</text>`);
  out.push(
    `<text x="${left + plotW}" y="${y0 + 14}" font-size="11" fill="${COLORS.axis}" text-anchor="end">${escapeHtml(ms(b.length * series.intervalMs))}</text>`,
  );
  out.push(
    `<text x="${left}" y="${height - 6}" font-size="11" fill="${COLORS.axis}">bars: lines finished per ${escapeHtml(ms(series.intervalMs))} (green completed, red failed); line: tokens per interval (right axis)</text>`,
  );
  return svg(width, height, title, out.join(''));
}
