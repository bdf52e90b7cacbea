import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

describe('minicode batch compare', () => {
  it('tells a difference on 10 of 50 lines from one on 2, from two real batches scored by expect', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, expect: { includes: 'PASS' } }));
    const batchPassing = (upTo: number) =>
      scriptedBatch(ids, (id) => ({ text: Number(id.slice(1)) < upTo ? 'PASS' : 'FAIL' }), ['--concurrency', '16']);
    const a = await batchPassing(25);
    const ten = await batchPassing(35);
    const two = await batchPassing(27);
    for (const r of [a, ten, two]) expect(r.result.code, r.result.stderr).toBe(0);
    const significant = await runCli(['batch', 'compare', a.out, ten.out, '--json']);
    expect(significant.code, significant.stderr).toBe(0);
    expect(JSON.parse(significant.stdout)).toMatchObject({
      pairs: 50,
      onlyA: 0,
      onlyB: 10,
      difference: 0.2,
      significant: true,
    });
    const noise = await runCli(['batch', 'compare', a.out, two.out]);
    expect(noise.code).toBe(0);
    expect(noise.stdout).toContain('**no significant difference**');
    expect(noise.stdout).toContain('McNemar exact p = 0.5000');
    const bad = await runCli(['batch', 'compare', a.dir, two.out]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('MINICODE_E_BATCH_REPORT');
  }, 180_000);
});
