/**
 * What `batch report` puts in the page itself so a shared report.html has nothing to break:
 * each line's patch (its diff embedded, lines toned), each line's transcript read from the store
 * (a real exec session over the replay provider), and "unknown" wherever a cost is unknown,
 * never $0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../lib/batch/records.js';
import { writeBatchReport } from '../../lib/batch/report/index.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTES, cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';

const PATCH =
  'diff --git a/test.js b/test.js\n--- a/test.js\n+++ b/test.js\n@@ -1,2 +1,2 @@\n-const x = 1;\n+const x = 2;\n context <b>kept</b>\n';

function record(id: string, line: number, extra: Partial<BatchRecord> = {}): BatchRecord {
  return {
    kind: 'result',
    id,
    line,
    outcome: 'completed',
    reason: 'completed',
    finalText: 'done',
    usage: { inputTokens: 100, outputTokens: 10 },
    ...extra,
  } as BatchRecord;
}

function outDir(records: BatchRecord[], patches: Record<string, string> = {}): string {
  const dir = tempDir('minicode-report-embedded-');
  fs.writeFileSync(path.join(dir, 'results.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.mkdirSync(path.join(dir, 'patches'));
  for (const [name, text] of Object.entries(patches)) fs.writeFileSync(path.join(dir, 'patches', name), text);
  return dir;
}

describe('batch report, self-contained', () => {
  it('embeds each line patch with its added and removed lines toned, and names a patch file that is gone', async () => {
    const dir = outDir(
      [
        record('has-patch', 1, { patch: 'patches/has-patch.diff' }),
        record('gone', 2, { patch: 'patches/gone.diff' }),
        record('none', 3),
      ],
      { 'has-patch.diff': PATCH },
    );
    const { htmlPath } = await writeBatchReport({ outDir: dir });
    const html = fs.readFileSync(htmlPath, 'utf8');
    expect(html).toContain('<summary>+1 −1</summary><pre class="diff">');
    expect(html).toContain('<span class="del">-const x = 1;</span>\n<span class="add">+const x = 2;</span>');
    expect(html).toContain(' context &lt;b&gt;kept&lt;/b&gt;');
    expect(html).toContain('patches/gone.diff not found');
    expect(html).not.toMatch(/<a href=/);
  });

  it('reads "unknown" for a cost no run reported, and a lower bound when some did, never $0', async () => {
    const unknown = await writeBatchReport({ outDir: outDir([record('a', 1), record('b', 2)]) });
    const html = fs.readFileSync(unknown.htmlPath, 'utf8');
    expect(html).toContain('<b>cost unknown (2 runs)</b>');
    expect(html).not.toContain('0.0000');
    expect(unknown.markdown).toContain('| cost | cost unknown (2 runs) |');
    const some = await writeBatchReport({ outDir: outDir([record('a', 1, { costUsd: 0.0125 }), record('b', 2)]) });
    expect(fs.readFileSync(some.htmlPath, 'utf8')).toContain('≥ $0.0125 (cost unknown for 1 run)');
  });

  it("shows each line's transcript from the store: the prompt, the tool calls with their results and the answer", async () => {
    const home = tempDir('minicode-home-');
    const run = await runCli(
      [
        'exec',
        'Read the README and tell me what it says',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        path.join(CASSETTES, 'anthropic-two-turn'),
        '--cwd',
        scratchProject(),
      ],
      {
        env: cleanEnv(home),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const sessionId = (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { sessionId: string }).sessionId;
    const dir = outDir([record('stored', 1, { sessionId }), record('elsewhere', 2, { sessionId: 'ses_not_here' })]);
    const store = path.join(home, 'store');
    const { htmlPath } = await writeBatchReport({ outDir: dir, storeDir: store });
    const html = fs.readFileSync(htmlPath, 'utf8');
    expect(html).toMatch(
      /<summary>3 messages, 1 tool call<\/summary><ol class="transcript"><li class="user"><b>user<\/b><pre>Read the README and tell me what it says<\/pre><\/li>/,
    );
    expect(html).toContain('<li class="call"><b>⏺ read_file</b>');
    expect(html).toMatch(/<li class="result"><b>read_file result<\/b><pre>[^<]*# sample-project/);
    expect(html).toContain('<li class="assistant"><b>assistant</b><pre>The README describes');
    expect(html).toContain(`not in the store at ${store}`);
  });
});
