/** `minicode batch report`: the report written, the Markdown summary on stdout, errors coded on stderr. */
import { MinicodeError } from '../lib/errors.js';
import { writeErr, writeOut } from './stdout.js';
import { definedOnly } from '../lib/defined-only.js';

/** Run the command; returns the exit code. */
export async function batchReportAction(out: string, flags: { compare?: string; store?: string }): Promise<number> {
  const { writeBatchReport } = await import('../lib/batch/report/index.js');
  const { resolveStoreDir } = await import('../lib/store/location.js');
  try {
    const result = await writeBatchReport(
      definedOnly({ outDir: out, compareDir: flags.compare, storeDir: resolveStoreDir({ flag: flags.store }) }),
    );
    writeOut(result.markdown);
    writeErr(`minicode batch report: wrote ${result.htmlPath}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    writeErr(`minicode batch report: ${error.code}: ${error.message}${error.action ? `\n  ${error.action}` : ''}\n`);
    return error.exitCode;
  }
}

/** `minicode batch compare A B [--json]`; returns the exit code. */
export async function batchCompareAction(a: string, b: string, flags: { json?: boolean }): Promise<number> {
  const [{ loadBatchOutput }, { comparePaired }, { significanceText }] = await Promise.all([
    import('../lib/batch/report/load.js'),
    import('../lib/batch/report/significance.js'),
    import('../lib/batch/report/markdown.js'),
  ]);
  try {
    const comparison = comparePaired(loadBatchOutput(a).records, loadBatchOutput(b).records);
    writeOut(flags.json ? `${JSON.stringify({ a, b, ...comparison })}\n` : `${significanceText(comparison)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    writeErr(`minicode batch compare: ${error.code}: ${error.message}${error.action ? `\n  ${error.action}` : ''}\n`);
    return error.exitCode;
  }
}
