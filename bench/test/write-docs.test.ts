/**
 * docs/benchmarks.md from several `npm run bench -- --json` runs: a benchmark rerun on its own
 * replaces the earlier run's report, and the page says which run each benchmark came from.
 */
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../harness.js';
import type { SuiteResult } from '../suite.js';
import { benchmarksMarkdown, combineResults } from '../write-docs.js';

function report(name: string, value: number): BenchReport {
  return {
    name,
    title: `${name} title`,
    description: `${name} description`,
    measurements: [],
    ratios: [{ label: `${name} ratio`, value }],
  };
}

function run(date: string, reports: BenchReport[], failures: SuiteResult['failures'] = [], quick = false): SuiteResult {
  return {
    machine: { cpus: 'cpu', cores: 2, memoryGiB: 24, node: 'v20', platform: 'linux' },
    date,
    quick,
    command: quick ? 'minicode bench --quick' : 'minicode bench',
    reports,
    failures,
  };
}

describe('combining benchmark runs for the docs page', () => {
  it('takes each benchmark from the last run that has it and keeps the first run order', () => {
    const combined = combineResults([
      run('d1', [report('a', 1), report('b', 2), report('c', 3)]),
      run('d2', [report('b', 20)]),
    ]);
    expect(combined.reports.map((r) => [r.name, r.ratios[0]!.value])).toEqual([
      ['a', 1],
      ['b', 20],
      ['c', 3],
    ]);
    expect(combined.sources).toEqual([
      { date: 'd1', command: 'minicode bench', quick: false, names: ['a', 'c'] },
      { date: 'd2', command: 'minicode bench', quick: false, names: ['b'] },
    ]);
  });

  it('lets a later report replace an earlier failure and the other way round', () => {
    const combined = combineResults([
      run('d1', [report('a', 1)], [{ name: 'b', message: 'boom' }]),
      run('d2', [report('b', 2)], [{ name: 'a', message: 'later boom' }]),
    ]);
    expect(combined.reports.map((r) => r.name)).toEqual(['b']);
    expect(combined.failures).toEqual([{ name: 'a', message: 'later boom' }]);
  });

  it('lists every contributing run on the page, and a single run as before', () => {
    const page = benchmarksMarkdown(
      combineResults([run('d1', [report('a', 1)]), run('d2', [report('b', 2)], [], true)]),
    );
    expect(page).toContain('- run of d1: `minicode bench`, **full**');
    expect(page).toContain('- run of d2: `minicode bench --quick`, **quick**');
    const single = benchmarksMarkdown(combineResults([run('d1', [report('a', 1)])]));
    expect(single).toContain('- date: d1');
    expect(single).not.toContain('run of');
  });
});
