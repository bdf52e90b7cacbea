/**
 * The `update_plan` tool end to end: a real `exec` run over the hand-made `plan` cassette, its
 * envelopes then rendered by every renderer (linear, TTY, JSONL) and projected for ACP.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProjector } from '../../lib/acp/projection.js';
import { OutputEventSchema, type OutputEvent } from '../../lib/events/index.js';
import { createJsonlRenderer } from '../../lib/render/jsonl.js';
import { createLinearRenderer } from '../../lib/render/linear.js';
import { viewOf } from '../../lib/render/state-view.js';
import { createTtyRenderer } from '../../lib/render/tty.js';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, TEST_CASSETTES } from '../exec/helpers.js';
import { createWireValidator } from '../acp/wire-schema.js';
import { collector, drive } from '../render/drive.js';
import { fakeTerminal, manualTimer, stripEscapes } from '../render/tty-fake.js';
import { execCassette, plainWorkspace, tempDir } from './helpers.js';

const CHECKLIST = [
  'plan: Two steps',
  '  [~] Read the README',
  '  [ ] Summarise it',
  'plan:',
  '  [x] Read the README',
  '  [~] Summarise it',
];

/** The lines of `text` that belong to the plan checklists, in order (a row is what follows its last carriage return, as a terminal shows it). */
const checklistOf = (text: string): string[] =>
  stripEscapes(text)
    .split('\n')
    .map((l) => l.slice(l.lastIndexOf('\r') + 1))
    .filter((l) => /^plan:|^ {2}\[[ x~]\] /.test(l))
    .map((l) => l.trimEnd());

describe('the update_plan tool', { timeout: 240_000 }, () => {
  it('produces plan.created then plan.updated, shown as a checklist by every renderer and sent to ACP as plan updates', async () => {
    const dir = plainWorkspace();
    const run = await execCassette('plan', dir, tempDir('minicode-home-'));
    expect(run.code, run.stderr).toBe(0);
    const events = run.records
      .filter((r) => typeof r.schema === 'string' && r.type !== 'summary')
      .map((r) => OutputEventSchema.parse(r) as OutputEvent);
    const plans = events.filter((e) => e.type === 'plan.created' || e.type === 'plan.updated');
    expect(plans.map((e) => e.type)).toEqual(['plan.created', 'plan.updated']);
    expect(plans[0]!.payload).toEqual({
      planId: 'plan-toolu_plan_1',
      explanation: 'Two steps',
      steps: [
        { id: 's1', title: 'Read the README', status: 'in_progress' },
        { id: 's2', title: 'Summarise it', status: 'pending' },
      ],
    });
    expect((plans[1]!.payload as { planId: string }).planId).toBe('plan-toolu_plan_1');
    // A plan changes nothing in the workspace: no checkpoint for it.
    expect(events.some((e) => e.type === 'checkpoint.created')).toBe(false);

    const linear = collector();
    drive(createLinearRenderer({ out: linear.write, viewOf }), events);
    expect(checklistOf(linear.text())).toEqual(CHECKLIST);
    const tty = collector();
    drive(
      createTtyRenderer({
        out: tty.write,
        viewOf,
        stream: fakeTerminal(80),
        env: {},
        clock: () => 0,
        timer: manualTimer(),
      }),
      events,
    );
    expect(checklistOf(tty.text())).toEqual(CHECKLIST);
    const jsonl = collector();
    drive(createJsonlRenderer({ out: jsonl.write, viewOf }), events);
    expect(
      jsonl
        .text()
        .split('\n')
        .filter((l) => l.includes('"type":"plan.'))
        .map((l) => JSON.parse(l).type),
    ).toEqual(['plan.created', 'plan.updated']);

    const projector = createProjector({ cwd: dir });
    const updates = events.flatMap((e) => projector.project(e)).filter((u) => u.sessionUpdate === 'plan');
    expect(updates).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the README', priority: 'medium', status: 'in_progress' },
          { content: 'Summarise it', priority: 'medium', status: 'pending' },
        ],
      },
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the README', priority: 'medium', status: 'completed' },
          { content: 'Summarise it', priority: 'medium', status: 'in_progress' },
        ],
      },
    ]);
    const validator = createWireValidator();
    for (const update of updates)
      expect(
        validator.check('agent', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } }),
      ).toEqual([]);
  });

  it('prints the checklist in the linear view of a real exec run', async () => {
    const dir = plainWorkspace();
    const result = await runCli(
      ['exec', 'plan it', '--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, 'plan'), '--cwd', dir],
      {
        env: cleanEnv(tempDir('minicode-home-')),
        timeoutMs: 120_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(checklistOf(result.stdout)).toEqual(CHECKLIST);
  });

  it('refuses a plan with two steps in progress, as a failed call the model can correct', async () => {
    const { createToolRegistry } = await import('../../lib/tools/index.js');
    const registry = createToolRegistry();
    const outcome = await registry.invoke(
      'update_plan',
      JSON.stringify({
        plan: [
          { step: 'a', status: 'in_progress' },
          { step: 'b', status: 'in_progress' },
        ],
      }),
      {
        cwd: '/',
        signal: new AbortController().signal,
        approve: async () => 'deny',
        limits: (await import('../../lib/tools/types.js')).DEFAULT_TOOL_LIMITS,
      },
    );
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.cause).toBe('MODEL_ERROR');
  });
});
