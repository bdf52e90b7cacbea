import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { UpdatePlanInput } from './input-schemas.js';
import type { PlanUpdate, Tool } from './types.js';
import { definedOnly } from '../defined-only.js';

/** Codex's `update_plan` input: an optional explanation and the whole plan, each step with its status. */
type Input = z.infer<typeof UpdatePlanInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.update_plan!;

/**
 * `update_plan`: the agent keeps a short plan and sends the whole of it on every change. The
 * loop turns the first call of a run into `plan.created` and the later ones into
 * `plan.updated` (same `planId`). Each registry makes its own instance, so "first" is per run.
 */
export function createUpdatePlanTool(): Tool<Input> {
  let planId: string | undefined;
  return {
    name: 'update_plan',
    description:
      'Keep a short plan of the task. Send the whole plan each time a step starts or finishes: {explanation?, plan: [{step, status: pending | in_progress | completed}]}, at most one step in_progress.',
    inputSchema: UpdatePlanInput,
    jsonSchema: JSON_SCHEMA,
    kind: 'other',
    gated: false,
    readOnly: true,
    title: (input) => `plan: ${input.plan.length} step${input.plan.length === 1 ? '' : 's'}`,
    async run(input, ctx) {
      const created = planId === undefined;
      planId ??= `plan-${ctx.toolCallId ?? '1'}`;
      const done = input.plan.filter((s) => s.status === 'completed').length;
      const plan: PlanUpdate = definedOnly({
        planId,
        created,
        steps: input.plan.map((s, i) => ({ id: `s${i + 1}`, title: s.step, status: s.status })),
        explanation: input.explanation || undefined,
      });
      return {
        status: 'completed',
        summary: `${done}/${input.plan.length} steps completed`,
        output: 'Plan updated.',
        plan,
      };
    },
  };
}
