/**
 * `minicode batch report OUT [--compare OUT2]`: read one or two batch output directories and
 * write `OUT/report.html`, one self-contained file (inline CSS, SVG and script; a CSP that
 * forbids any network use; each line's patch and transcript embedded, so a shared page has no
 * link to break), and return the Markdown summary the command prints.
 */
import path from 'node:path';
import { scrubArtefact, writeArtefact } from '../../artefacts.js';
import { compareBody, matchIds } from './compare.js';
import { singleRunBody } from './html.js';
import { loadBatchOutput } from './load.js';
import { compareMarkdown, singleRunMarkdown } from './markdown.js';
import { buildRunView, type RunView } from './model.js';
import { loadTranscripts } from './transcripts.js';
import { page } from './page.js';

/** Options of {@link writeBatchReport}. */
export interface ReportOptions {
  outDir: string;
  /** A second run to compare with (B; `outDir` is A). */
  compareDir?: string;
  /** Default `new Date()`: injected so tests get the same bytes. */
  now?: () => Date;
  /** The store holding the runs' sessions, for each line's transcript; absent: no transcripts. */
  storeDir?: string;
}

/** What the command prints and where the page went. */
export interface ReportResult {
  htmlPath: string;
  markdown: string;
}

/** A loaded run with the transcripts its store holds. */
async function viewOf(dir: string, storeDir: string | undefined): Promise<RunView> {
  const loaded = loadBatchOutput(dir);
  if (storeDir === undefined) return buildRunView(loaded);
  return buildRunView(loaded, { transcripts: await loadTranscripts(loaded.records, storeDir), storeDir });
}

/** Build the report (written to `OUT/report.html`); throws MINICODE_E_BATCH_REPORT when a folder is not a batch output. */
export async function writeBatchReport(options: ReportOptions): Promise<ReportResult> {
  const generatedAt = (options.now ?? (() => new Date()))().toISOString();
  const a = await viewOf(options.outDir, options.storeDir);
  const htmlPath = path.join(options.outDir, 'report.html');
  let html: string;
  let markdown: string;
  if (options.compareDir !== undefined) {
    const b = await viewOf(options.compareDir, options.storeDir);
    html = page('minicode batch comparison', compareBody(a, b, generatedAt));
    markdown = compareMarkdown(a, b, matchIds(a, b).match, htmlPath);
  } else {
    html = page('minicode batch report', singleRunBody(a, generatedAt));
    markdown = singleRunMarkdown(a, htmlPath);
  }
  // Written whole under a temporary name, then renamed: a reader never sees half a page.
  writeArtefact(htmlPath, html);
  return { htmlPath, markdown: scrubArtefact(markdown) };
}
