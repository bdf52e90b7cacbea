/**
 * bench/exec-cost: what one `minicode exec --json` run costs the machine, beside the bare Node
 * process (`node -e 0`, the floor, measured in the same run) and, with `--peers` (or
 * `MINICODE_BENCH_PEERS=1`), beside Codex and Claude Code doing the same job.
 *
 * The job (bench/support/agent-provider.ts): one shell tool call (`cat README.md`), then the
 * answer, over loopback HTTP from a scripted provider in this process that speaks each agent's
 * wire format (minicode and Claude Code: Anthropic Messages; Codex: OpenAI Responses). Each agent
 * runs in its own copy of the demo's sample project with a persistent home (its store, sessions,
 * config), stdout to a pipe. Per run: process CPU time (user + sys of the process and what it
 * waited for, from wait4(2) through bench/support/rusage-run.c, else `/usr/bin/time`, else the
 * child's own `process.resourceUsage()` at exit),
 * peak RSS (maxRSS), time to the first stdout line and wall time. Competitors run in interleaved
 * rounds after one warm-up round; medians are compared. minicode runs two ways: as installed
 * and with `--no-checkpoint`.
 *
 * Peers are pinned releases installed by npm into a cache folder (bench/support/peer-clis.ts;
 * `--peers-dir DIR`, default ~/.cache/minicode/bench-peers). `--against DIR` runs another build of
 * minicode (the root holding its dist/, e.g. main's) in the same rounds, to measure a change. With peers the whole benchmark runs
 * in a loopback-only network namespace (`unshare -n`) where the machine allows one, and says
 * whether it did. Besides `node -e 0`, a second floor does the job itself with the least a Node
 * program needs (bench/support/job-floor.ts: node:http, the shell, one synced lmdb commit; and
 * without the store): what any Node agent CLI pays for this job. Targets (issue #23): CPU <= 0.25x Codex's and <= 2.5x `node -e 0`, peak RSS
 * <= 0.5x Codex's and <= 60 MB, first `--json` line <= 120 ms.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  measurement,
  runIfMain,
  type BenchOptions,
  type BenchReport,
  type Measurement,
  type Ratio,
} from './harness.js';
import { JOB_PROMPT, startAgentProvider, type AgentProvider } from './support/agent-provider.js';
import { NETNS_MARK, netnsFlags, runInNetns } from './support/netns.js';
import { defaultPeersDir, installPeer, PEER_CLIS } from './support/peer-clis.js';
import { cpuMeter, readMeter, type Meter } from './support/rusage.js';
import { sampleProject } from './support/sample-project.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);
const CLI = path.join(ROOT, 'dist/cli/main.js');
const JOB_FLOOR_SCRIPT = path.join(HERE, 'support/job-floor.js');
/** The name of the job done by a bare Node script in the report. */
const JOB_FLOOR = 'bare Node job (node:http + sh + lmdb commit)';
const TARGET = { cpuVsCodex: 0.25, cpuVsFloor: 2.5, rssVsCodex: 0.5, rssMB: 60, firstLineMs: 120 };

/** Fallback when /usr/bin/time is absent: a Node child reports its own usage on stderr at exit. */
const USAGE_PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nMINICODE_USAGE '+JSON.stringify(u)+'\\n')})`;

interface RunCost {
  cpuS: number;
  firstLineMs: number;
  wallMs: number;
  rssMB: number;
}

/** One competitor: how to start one run of the job. */
interface Competitor {
  name: string;
  /** The executable and its arguments; `node` marks a Node process (the usage preload then works without /usr/bin/time). */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  node: boolean;
}

async function oneRun(c: Competitor, meter: Meter | undefined, scratch: string): Promise<RunCost> {
  const timeFile = path.join(scratch, `time-${process.hrtime.bigint()}.txt`);
  const args = c.node && !meter ? ['--import', USAGE_PRELOAD, ...c.args] : c.args;
  const [command, ...argv] = meter ? [...meter.prefix(timeFile), c.command, ...args] : [c.command, ...args];
  const started = performance.now();
  let firstLineMs = Number.NaN;
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(command!, argv, { env: c.env, cwd: c.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b: Buffer) => {
      if (Number.isNaN(firstLineMs) && b.includes(10)) firstLineMs = performance.now() - started;
    });
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${c.name} exited ${code}: ${Buffer.concat(stderr).toString('utf8').slice(-600)}`);
  if (meter) return { ...readMeter(timeFile), firstLineMs, wallMs };
  const line = Buffer.concat(stderr)
    .toString('utf8')
    .split('\n')
    .find((l) => l.startsWith('MINICODE_USAGE '));
  if (!line) throw new Error(`${c.name}: no usage report (install /usr/bin/time to measure non-Node peers)`);
  const usage = JSON.parse(line.slice('MINICODE_USAGE '.length)) as NodeJS.ResourceUsage;
  return { cpuS: (usage.userCPUTime + usage.systemCPUTime) / 1e6, firstLineMs, wallMs, rssMB: usage.maxRSS / 1024 };
}

/**
 * The competitors of one benchmark run: the floor, minicode, and the installed peers, each with
 * its own copy of the sample project as its home (HOME, MINICODE_HOME, CODEX_HOME inside it).
 * Peers' homes go under `peerHomes`, outside the temp dir: Codex skips part of its start-up work
 * for a home under /tmp, which a real installation does not.
 */
function competitors(
  provider: AgentProvider,
  homes: string[],
  peerBinaries: Map<string, string>,
  peerHomes: string,
  against?: string,
): Competitor[] {
  const project = (name: string, parent?: string): { cwd: string; env: NodeJS.ProcessEnv; home: string } => {
    const p = sampleProject(ROOT, `minicode-exec-cost-${name}-`, parent);
    homes.push(p.scratch);
    fs.mkdirSync(path.join(p.scratch, 'codex'), { recursive: true });
    return { cwd: p.cwd, home: p.scratch, env: p.env };
  };
  const floor = project('floor');
  const ours = project('minicode');
  const list: Competitor[] = [
    { name: 'node -e 0', command: process.execPath, args: ['-e', '0'], env: floor.env, cwd: floor.cwd, node: true },
    // The same job by the least a Node program needs (bench/support/job-floor.ts): what any Node agent CLI pays for it.
    {
      name: JOB_FLOOR,
      command: process.execPath,
      args: [JOB_FLOOR_SCRIPT, JOB_PROMPT],
      env: { ...floor.env, ANTHROPIC_BASE_URL: provider.origin },
      cwd: floor.cwd,
      node: true,
    },
    {
      name: `${JOB_FLOOR}, no store`,
      command: process.execPath,
      args: [JOB_FLOOR_SCRIPT, JOB_PROMPT, '--no-store'],
      env: { ...floor.env, ANTHROPIC_BASE_URL: provider.origin },
      cwd: floor.cwd,
      node: true,
    },
    {
      name: 'minicode',
      command: process.execPath,
      args: [CLI, 'exec', JOB_PROMPT, '--json', '--cwd', ours.cwd, '--provider', 'anthropic'],
      env: { ...ours.env, ANTHROPIC_BASE_URL: provider.origin, ANTHROPIC_API_KEY: 'sk-ant-bench-fake-key-0123456789' },
      cwd: ours.cwd,
      node: true,
    },
    // Checkpoints are on by default; this shows what their git work adds to the run.
    {
      name: 'minicode --no-checkpoint',
      command: process.execPath,
      args: [CLI, 'exec', JOB_PROMPT, '--json', '--cwd', ours.cwd, '--provider', 'anthropic', '--no-checkpoint'],
      env: { ...ours.env, ANTHROPIC_BASE_URL: provider.origin, ANTHROPIC_API_KEY: 'sk-ant-bench-fake-key-0123456789' },
      cwd: ours.cwd,
      node: true,
    },
  ];
  if (against) {
    // Another build of minicode (e.g. main's), same job, same flags, its own project copy.
    const base = project('against');
    const args = [
      path.join(against, 'dist/cli/main.js'),
      'exec',
      JOB_PROMPT,
      '--json',
      '--cwd',
      base.cwd,
      '--provider',
      'anthropic',
    ];
    const env = {
      ...base.env,
      ANTHROPIC_BASE_URL: provider.origin,
      ANTHROPIC_API_KEY: 'sk-ant-bench-fake-key-0123456789',
    };
    list.push({ name: AGAINST, command: process.execPath, args, env, cwd: base.cwd, node: true });
    list.push({
      name: `${AGAINST} --no-checkpoint`,
      command: process.execPath,
      args: [...args, '--no-checkpoint'],
      env,
      cwd: base.cwd,
      node: true,
    });
  }
  for (const peer of PEER_CLIS) {
    const binary = peerBinaries.get(peer.name);
    if (!binary) continue;
    const p = project(peer.name.split(' ')[0]!.toLowerCase(), peerHomes);
    const run = peer.invocation(provider.origin, p.cwd, p.home);
    list.push({
      name: peer.name,
      command: binary,
      args: run.args,
      env: { ...p.env, ...run.env },
      cwd: p.cwd,
      node: false,
    });
  }
  return list;
}

/** The name of the `--against DIR` build in the report. */
const AGAINST = 'minicode (--against build)';

/** `--against DIR` from argv: the root of another minicode build (its `dist/cli/main.js`) to run in the same rounds. */
function againstDir(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--against');
  if (i < 0) return undefined;
  const dir = argv[i + 1] ? path.resolve(argv[i + 1]!) : '';
  if (!dir || !fs.existsSync(path.join(dir, 'dist/cli/main.js')))
    throw new Error(`--against needs a minicode root holding dist/cli/main.js (got ${argv[i + 1] ?? 'nothing'})`);
  return dir;
}

/** `--peers-dir DIR` from argv, else the default cache folder. */
function peersDir(argv: readonly string[]): string {
  const i = argv.indexOf('--peers-dir');
  return i >= 0 && argv[i + 1] ? path.resolve(argv[i + 1]!) : defaultPeersDir();
}

const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** Measure every competitor in interleaved rounds (after one untimed warm-up round). */
async function measure(
  options: BenchOptions,
  peerBinaries: Map<string, string>,
  peerHomes: string,
  notes: string[],
  against?: string,
): Promise<Map<string, RunCost[]>> {
  const rounds = options.quick ? 5 : 9;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-exec-cost-'));
  const provider = await startAgentProvider();
  const homes: string[] = [];
  const meter = cpuMeter(ROOT, scratch);
  const costs = new Map<string, RunCost[]>();
  notes.push(`load average (1/5/15 min) at start: ${load()}`);
  try {
    const list = competitors(provider, homes, peerBinaries, peerHomes, against);
    for (const c of list) costs.set(c.name, []);
    for (let r = 0; r <= rounds; r++) {
      for (const c of list) {
        const cost = await oneRun(c, meter, scratch);
        if (r > 0) costs.get(c.name)!.push(cost);
      }
    }
  } finally {
    await provider.close();
    for (const dir of [scratch, ...homes]) fs.rmSync(dir, { recursive: true, force: true });
  }
  notes.push(`load average at end: ${load()}`);
  notes.push(
    `CPU and RSS from ${meter ? `${meter.describe}: the process and the children it waited for, e.g. the shell of the tool call` : "the child's process.resourceUsage() at exit"}; ${rounds} interleaved rounds after one warm-up round; requests served: ${JSON.stringify(Object.fromEntries(provider.counts))}.`,
  );
  return costs;
}

/** Run the benchmark (see the header). */
export async function run(
  options: BenchOptions,
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BenchReport> {
  const wantPeers = argv.includes('--peers') || env.MINICODE_BENCH_PEERS === '1';
  const notes: string[] = [];
  const peerBinaries = new Map<string, string>();
  const dir = peersDir(argv);
  if (wantPeers) {
    for (const peer of PEER_CLIS) peerBinaries.set(peer.name, installPeer(peer, dir));
    notes.push(`peers: ${PEER_CLIS.map((p) => p.spec).join(', ')} from ${dir}, run through their native executables.`);
    if (env[NETNS_MARK] === undefined) {
      const ns = netnsFlags();
      if ('flags' in ns) {
        // The whole benchmark (provider and every agent) moves into the namespace: they must share its loopback.
        const self = fileURLToPath(import.meta.url);
        const out = await runInNetns(
          ns.flags,
          [
            self,
            '--json',
            ...(options.quick ? ['--quick'] : []),
            '--peers',
            '--peers-dir',
            dir,
            ...(argv.includes('--against') ? ['--against', againstDir(argv)!] : []),
          ],
          env,
        );
        return JSON.parse(out.trim().split('\n').pop()!) as BenchReport;
      }
      notes.push(`network namespace: none could be had (${ns.reason}); the peers ran with this machine's network.`);
    } else notes.push(`ran in a loopback-only network namespace (unshare ${env[NETNS_MARK]}).`);
  } else
    notes.push(
      'peers (Codex, Claude Code) were NOT measured: pass --peers (or set MINICODE_BENCH_PEERS=1) to install and run them; only absolute figures and the node -e 0 floor below.',
    );
  const against = againstDir(argv);
  if (against) notes.push(`'${AGAINST}' is the build under ${against}, run in the same rounds with the same job.`);
  const costs = await measure(options, peerBinaries, path.join(dir, 'homes'), notes, against);
  const measurements: Measurement[] = [];
  const of = (name: string, pick: (c: RunCost) => number): number[] => (costs.get(name) ?? []).map(pick);
  const medians = new Map<string, Record<'cpu' | 'rss' | 'first' | 'wall', Measurement>>();
  for (const name of costs.keys()) {
    const m = {
      cpu: measurement(
        `${name}: process CPU time (user + sys)`,
        's',
        of(name, (c) => c.cpuS),
        false,
      ),
      rss: measurement(
        `${name}: peak RSS (maxRSS)`,
        'MB',
        of(name, (c) => c.rssMB),
        false,
      ),
      first: measurement(
        `${name}: time to first stdout line`,
        'ms',
        of(name, (c) => c.firstLineMs),
        false,
      ),
      wall: measurement(
        `${name}: wall time of the run`,
        'ms',
        of(name, (c) => c.wallMs),
        false,
      ),
    };
    medians.set(name, m);
    measurements.push(m.cpu, m.rss, ...(name === 'node -e 0' ? [] : [m.first]), m.wall);
  }
  const ours = medians.get('minicode')!;
  const floor = medians.get('node -e 0')!;
  const ratios: Ratio[] = [
    {
      label: 'minicode CPU / node -e 0 CPU',
      value: ours.cpu.median / floor.cpu.median,
      target: { op: '<=', value: TARGET.cpuVsFloor },
    },
    { label: 'minicode peak RSS', value: ours.rss.median, unit: 'MB', target: { op: '<=', value: TARGET.rssMB } },
    {
      label: 'minicode time to first --json line',
      value: ours.first.median,
      unit: 'ms',
      target: { op: '<=', value: TARGET.firstLineMs },
    },
    { label: 'minicode CPU (absolute)', value: ours.cpu.median, unit: 's' },
    { label: `${JOB_FLOOR} CPU / node -e 0 CPU`, value: medians.get(JOB_FLOOR)!.cpu.median / floor.cpu.median },
    {
      label: `${JOB_FLOOR}, no store CPU / node -e 0 CPU`,
      value: medians.get(`${JOB_FLOOR}, no store`)!.cpu.median / floor.cpu.median,
    },
    { label: `minicode CPU / ${JOB_FLOOR} CPU`, value: ours.cpu.median / medians.get(JOB_FLOOR)!.cpu.median },
    {
      label: 'minicode --no-checkpoint CPU / node -e 0 CPU',
      value: medians.get('minicode --no-checkpoint')!.cpu.median / floor.cpu.median,
    },
  ];
  const base = medians.get(AGAINST);
  if (base) {
    ratios.push({ label: `minicode CPU / ${AGAINST} CPU`, value: ours.cpu.median / base.cpu.median });
    ratios.push({ label: `minicode peak RSS / ${AGAINST} peak RSS`, value: ours.rss.median / base.rss.median });
    ratios.push({ label: `minicode first line / ${AGAINST} first line`, value: ours.first.median / base.first.median });
  }
  for (const peer of PEER_CLIS) {
    const m = medians.get(peer.name);
    if (!m) continue;
    const codex = peer.spec.startsWith('@openai/codex');
    ratios.push({
      label: `minicode CPU / ${peer.name} CPU`,
      value: ours.cpu.median / m.cpu.median,
      ...(codex ? { target: { op: '<=' as const, value: TARGET.cpuVsCodex } } : {}),
    });
    ratios.push({
      label: `minicode RSS / ${peer.name} RSS`,
      value: ours.rss.median / m.rss.median,
      ...(codex ? { target: { op: '<=' as const, value: TARGET.rssVsCodex } } : {}),
    });
    ratios.push({ label: `minicode first line / ${peer.name} first line`, value: ours.first.median / m.first.median });
    // What the least Node program doing the job costs against the peer: the bound of the CPU target on this machine.
    ratios.push({
      label: `${JOB_FLOOR} CPU / ${peer.name} CPU`,
      value: medians.get(JOB_FLOOR)!.cpu.median / m.cpu.median,
    });
  }
  return {
    name: 'exec-cost',
    title: 'minicode exec: per-run cost of a two-turn job over loopback',
    description: `The real CLI process (the bundle bin names), --json to a pipe, a persistent store, against a scripted loopback provider: one shell tool call (cat README.md), then the answer. Floor: node -e 0 in the same rounds.${peerBinaries.size > 0 ? ` Peers in the same rounds, same job, same provider: ${PEER_CLIS.map((p) => p.name).join(', ')}.` : ' Peers not measured in this run (--peers).'}`,
    measurements,
    ratios,
    notes,
  };
}

await runIfMain(import.meta.url, run);
