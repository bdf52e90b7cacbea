/** Minimal SVG bar charts for docs/benchmarks.md: one chart per benchmark, median bars with min–max whiskers. */
import { fmt, type BenchReport, type Measurement } from './harness.js';

function escapeXml(s: string): string {
  return s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );
}

/** One horizontal bar chart per unit group of a report's measurements. */
export function reportChart(report: BenchReport): string {
  const groups = new Map<string, Measurement[]>();
  for (const m of report.measurements) groups.set(m.unit, [...(groups.get(m.unit) ?? []), m]);
  const width = 760;
  const labelWidth = 300;
  const barArea = width - labelWidth - 110;
  const rowHeight = 26;
  let y = 34;
  const parts: string[] = [];
  parts.push(`<text x="10" y="20" font-size="15" font-weight="bold">${escapeXml(report.title)}</text>`);
  for (const [unit, ms] of groups) {
    const max = Math.max(...ms.map((m) => m.max), 1e-9);
    parts.push(
      `<text x="10" y="${y + 14}" font-size="12" fill="#555">${escapeXml(unit)} (${ms[0]?.higherIsBetter ? 'higher is better' : 'lower is better'})</text>`,
    );
    y += 22;
    for (const m of ms) {
      const w = Math.max(1, (m.median / max) * barArea);
      const x0 = labelWidth + (m.min / max) * barArea;
      const x1 = labelWidth + (m.max / max) * barArea;
      parts.push(
        `<text x="10" y="${y + 15}" font-size="12">${escapeXml(m.label.slice(0, 44))}</text>`,
        `<rect x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="16" fill="#4a7bd0"/>`,
        `<line x1="${x0.toFixed(1)}" x2="${x1.toFixed(1)}" y1="${y + 12}" y2="${y + 12}" stroke="#222" stroke-width="1.5"/>`,
        `<text x="${(labelWidth + barArea + 8).toFixed(0)}" y="${y + 16}" font-size="12">${fmt(m.median)}</text>`,
      );
      y += rowHeight;
    }
    y += 8;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y + 10}" viewBox="0 0 ${width} ${y + 10}" font-family="sans-serif"><rect width="100%" height="100%" fill="#fff"/>${parts.join('')}</svg>\n`;
}
