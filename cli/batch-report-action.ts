/** `minicode batch report`: the report written, the Markdown summary on stdout, errors coded on stderr. */
import { MinicodeError } from '../lib/errors.js';
import { writeErr, writeOut } from './stdout.js';
import { definedOnly } from '../lib/defined-only.js';

/** Run the command; returns the exit code. */
export async function batchReportAction(out: string, flags: { compare?: string }): Promise<number> {
  const { writeBatchReport } = await import('../lib/batch/report/index.js');
  try {
    const result = writeBatchReport(definedOnly({ outDir: out, compareDir: flags.compare }));
    writeOut(result.markdown);
    writeErr(`minicode batch report: wrote ${result.htmlPath}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    writeErr(`minicode batch report: ${error.code}: ${error.message}${error.action ? `\n  ${error.action}` : ''}\n`);
    return error.exitCode;
  }
}
