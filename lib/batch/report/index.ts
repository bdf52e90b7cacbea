/**
 * `minicode batch report OUT [--compare OUT2]`: read one or two batch output directories and
 * write `OUT/report.html`, one self-contained file (inline CSS, SVG and script; a CSP that
 * forbids any network use), and return the Markdown summary the command prints.
 */
import path from 'node:path';
import { scrubArtefact, writeArtefact } from '../../artefacts.js';
import { compareBody, matchIds } from './compare.js';
import { singleRunBody } from './html.js';
import { loadBatchOutput } from './load.js';
import { compareMarkdown, singleRunMarkdown } from './markdown.js';
import { buildRunView } from './model.js';
import { page } from './page.js';

/** Options of {@link writeBatchReport}. */
export interface ReportOptions {
  outDir: string;
  /** A second run to compare with (B; `outDir` is A). */
  compareDir?: string;
  /** Default `new Date()`: injected so tests get the same bytes. */
  now?: () => Date;
}

/** What the command prints and where the page went. */
export interface ReportResult {
  htmlPath: string;
  markdown: string;
}

/** Links from A's folder to B's, one URL-encoded segment at a time. */
function relativePrefix(from: string, to: string): string {
  const rel = path.relative(path.resolve(from), path.resolve(to));
  if (rel === '') return '';
  return `${rel.split(path.sep).map(encodeURIComponent).join('/')}/`;
}

/** Build the report (written to `OUT/report.html`); throws MINICODE_E_BATCH_REPORT when a folder is not a batch output. */
export function writeBatchReport(options: ReportOptions): ReportResult {
  const generatedAt = (options.now ?? (() => new Date()))().toISOString();
  const a = buildRunView(loadBatchOutput(options.outDir));
  const htmlPath = path.join(options.outDir, 'report.html');
  let html: string;
  let markdown: string;
  if (options.compareDir !== undefined) {
    const b = buildRunView(loadBatchOutput(options.compareDir));
    const prefix = relativePrefix(options.outDir, options.compareDir);
    html = page('minicode batch comparison', compareBody(a, b, prefix, generatedAt));
    markdown = compareMarkdown(a, b, matchIds(a, b).match, htmlPath);
  } else {
    html = page('minicode batch report', singleRunBody(a, generatedAt));
    markdown = singleRunMarkdown(a, htmlPath);
  }
  // Written whole under a temporary name, then renamed: a reader never sees half a page.
  writeArtefact(htmlPath, html);
  return { htmlPath, markdown: scrubArtefact(markdown) };
}
