/**
 * `minicode batch report` end to end: a real batch (replay provider, isolated worktrees, verify,
 * hostile ids and prompts), then the report, loaded in headless Chromium from file://: the
 * rendered DOM is checked and a screenshot taken, and Chromium's console must stay silent (a
 * script error, a CSP violation or a blocked network request would all be logged there).
 * Chromium comes from `.ci/run` (apt `chromium`); elsewhere the test skips, saying so, unless
 * MINICODE_TEST_REQUIRE_CHROMIUM=1 (CI), where a missing browser fails it.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { intervalFor } from '../../lib/batch/throughput.js';
import { ROOT, runCli } from '../helpers/cli.js';

const CASSETTE = path.join(ROOT, 'cassettes/demo');
const PROJECT = path.join(ROOT, 'demo/sample-project');
const HOSTILE_ID = '<img src=x onerror="document.title=\'pwned\'">';
const HOSTILE_PROMPT = "</script><script>document.title='pwned'</script>\u202eFix the failing test";

function findChromium(): string | undefined {
  const names = [
    process.env.MINICODE_TEST_CHROMIUM,
    'chromium',
    'chromium-browser',
    'google-chrome',
    'google-chrome-stable',
  ].filter((n): n is string => !!n);
  for (const name of names) {
    try {
      execFileSync('sh', ['-c', `command -v "$1"`, 'sh', name], { stdio: 'pipe' });
      return name;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

const CHROMIUM = findChromium();
if (!CHROMIUM) {
  if (process.env.MINICODE_TEST_REQUIRE_CHROMIUM === '1')
    throw new Error('MINICODE_TEST_REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install -y chromium)');
  console.warn(
    'skipping the batch report browser tests: no chromium on PATH (apt-get install -y chromium, or set MINICODE_TEST_CHROMIUM)',
  );
}

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** Run headless Chromium on a file; its stdout and its log (stderr). */
function chromium(args: string[], file: string): Promise<{ stdout: string; log: string; code: number | null }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chromium-'));
  return new Promise((resolve, reject) => {
    const child = spawn(
      CHROMIUM!,
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--enable-logging=stderr',
        '--v=0',
        '--hide-scrollbars',
        ...args,
        `file://${file}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.rmSync(profile, { recursive: true, force: true });
      resolve({ stdout: Buffer.concat(out).toString('utf8'), log: Buffer.concat(err).toString('utf8'), code });
    });
  });
}

/** Console messages Chromium logged for the page (script errors, CSP violations, blocked loads). */
function consoleLines(log: string): string[] {
  return log.split('\n').filter((l) => l.includes(':CONSOLE'));
}

/** A real batch of three lines in isolated worktrees of one repository; one fails its verify. */
async function realBatch(dir: string, out: string, ids: string[]): Promise<void> {
  const repo = path.join(dir, 'repo');
  if (!fs.existsSync(repo)) {
    fs.cpSync(PROJECT, repo, { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  }
  const input = path.join(dir, `${path.basename(out)}.jsonl`);
  const lines = ids.map((id, i) => ({
    id,
    prompt: i === 1 ? HOSTILE_PROMPT : 'Fix the failing test in this project',
    cwd: 'repo',
    ...(i === 2 ? { verify: 'echo "<b>nope</b>"; exit 3' } : {}),
  }));
  fs.writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = await runCli(
    [
      'batch',
      input,
      '--provider',
      'replay',
      '--cassette',
      CASSETTE,
      '--store',
      path.join(dir, 'store'),
      '--out',
      out,
      '--isolate',
      'worktree',
      '--verify',
      'node test.js',
      '--verify-soft',
      '--concurrency',
      '3',
    ],
    {
      cwd: dir,
      env: { MINICODE_HOME: path.join(dir, 'home') },
      timeoutMs: 120_000,
    },
  );
  expect(r.code, r.stderr).toBe(0);
}

describe.skipIf(!CHROMIUM)('minicode batch report in headless Chromium', () => {
  it('renders a real batch: summary, charts, one row per line with its patch and transcript embedded, no console messages, no injected markup', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-report-test-'));
    const out = path.join(dir, 'out');
    await realBatch(dir, out, ['fix/1', HOSTILE_ID, 'fails-verify']);
    // Throughput over time: every line of this invocation in the series, with its tokens.
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const buckets = summary.throughput.buckets as { completed: number; failed: number; tokens: number }[];
    expect(summary.throughput.intervalMs).toBe(intervalFor(summary.durationMs));
    expect(buckets.reduce((n, b) => n + b.completed + b.failed, 0)).toBe(3);
    expect(buckets.reduce((n, b) => n + b.tokens, 0)).toBe(summary.usage.totalTokens);
    const r = await runCli(['batch', 'report', out, '--store', path.join(dir, 'store')], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('| completed / failed / pending | 3 / 0 / 0 |');
    expect(r.stdout).toContain('| verify passed | 2 of 3 (66.7%) |');
    const html = path.join(out, 'report.html');

    const dom = await chromium(['--dump-dom'], html);
    expect(dom.code).toBe(0);
    expect(consoleLines(dom.log)).toEqual([]);
    expect(dom.stdout).toContain('data-report="ready"');
    // The hostile id and prompt would set document.title if they ran; they are text.
    expect(dom.stdout).toContain('<title>minicode batch report</title>');
    expect(dom.stdout).toContain("&lt;script&gt;document.title='pwned'&lt;/script&gt;");
    expect(dom.stdout).not.toMatch(/<img[\s>]/);
    const rows = dom.stdout.match(/<tr class="(?:completed|failed)"/g) ?? [];
    expect(rows).toHaveLength(3);
    expect(dom.stdout).toContain('&lt;img src=x onerror=');
    expect(dom.stdout).toContain('\\u202e');
    expect(dom.stdout).toContain('failed (exit 3)');
    for (const chart of ['Total time per line', 'Time to first token', 'Outcomes and verify', 'Throughput over time'])
      expect(dom.stdout).toContain(`aria-label="${chart}"`);
    // Each line's patch is in the page (nothing to link to: a shared page has no broken link),
    // and so is its transcript from the store, the prompt first.
    expect(dom.stdout).not.toMatch(/<a href=/);
    const diffs = [...dom.stdout.matchAll(/<pre class="diff">([\s\S]*?)<\/pre>/g)].map((m) => m[1]!);
    expect(diffs).toHaveLength(3);
    for (const diff of diffs) expect(diff).toMatch(/^diff --git /);
    for (const diff of diffs) expect(diff).toMatch(/<span class="add">\+/);
    const transcripts = dom.stdout.match(/<ol class="transcript"><li class="user"><b>user<\/b>/g) ?? [];
    expect(transcripts).toHaveLength(3);
    expect(dom.stdout).toContain('<li class="call"><b>⏺ ');

    const shot = path.join(dir, 'report.png');
    const s = await chromium(['--window-size=1280,1600', `--screenshot=${shot}`], html);
    expect(s.code).toBe(0);
    expect(consoleLines(s.log)).toEqual([]);
    const png = fs.readFileSync(shot);
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(png.readUInt32BE(16)).toBe(1280);
    // A blank page compresses to a few KB; the report's text and charts do not.
    expect(png.length).toBeGreaterThan(40_000);
  }, 240_000);

  it('compares two runs line by line: matched ids, changed rows marked, both sides patches embedded', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-report-compare-'));
    const a = path.join(dir, 'run-a');
    const b = path.join(dir, 'run-b');
    await realBatch(dir, a, ['one', 'two', 'only-a']);
    await realBatch(dir, b, ['one', 'two', 'only-b']);
    const r = await runCli(['batch', 'report', a, '--compare', b], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('2 ids in both (0 changed outcome or verify), 1 only in A, 1 only in B.');
    const dom = await chromium(['--dump-dom'], path.join(a, 'report.html'));
    expect(consoleLines(dom.log)).toEqual([]);
    expect(dom.stdout).toContain('data-report="ready"');
    expect(dom.stdout.match(/<tr class="changed"/g)).toHaveLength(2);
    expect(dom.stdout.match(/<tr class="same"/g)).toHaveLength(2);
    expect(dom.stdout).not.toMatch(/<a href=/);
    // Three lines of A and three of B, each patch in the page.
    expect(dom.stdout.match(/<pre class="diff">diff --git /g)).toHaveLength(6);
  }, 300_000);

  it('refuses a folder that is not a batch output with MINICODE_E_BATCH_REPORT and exit 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-report-none-'));
    const r = await runCli(['batch', 'report', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('MINICODE_E_BATCH_REPORT');
    expect(fs.existsSync(path.join(dir, 'report.html'))).toBe(false);
  });
});
