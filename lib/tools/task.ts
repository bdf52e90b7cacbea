import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { TaskInput } from './input-schemas.js';
import type { ChildSessions, Tool } from './types.js';

type Input = z.infer<typeof TaskInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.task!;

/** What a call at the depth limit is told (the tool is not offered there; a model may call it anyway). */
export const TASK_DEPTH_REFUSAL =
  'task is not available here: this session is itself a child session, and child sessions may not start their own (depth limit)';

/**
 * `task`: start a child session (a sub-agent) with its own context, the prompt the model
 * writes, and an agent definition; the child's final answer, or the result it submitted, is the
 * tool's result. The name and input are those of Claude Code's Task tool, the shape Claude's
 * models are trained to call; other models read the description. The child runs in this run's
 * workspace, sandbox and approval policy, and stops when this run stops.
 */
export function createTaskTool(children: ChildSessions): Tool<Input> {
  const listed = children.agents.map((a) => `- ${a.name}: ${a.description}`).join('\n');
  return {
    name: 'task',
    description: [
      "Start a sub-agent on a self-contained task. It works in its own context (it does not see this conversation), with the tools of its agent type, and its final answer comes back as this tool's result. Use it for broad searches or research that would fill your context, or for independent pieces of work; several task calls in one step run in parallel. Write a complete prompt: what to do, what to return.",
      '',
      'Agent types (subagent_type):',
      listed,
    ].join('\n'),
    inputSchema: TaskInput,
    jsonSchema: JSON_SCHEMA,
    kind: 'other',
    gated: false,
    offered: children.canStart,
    title: (input) => `${input.subagent_type}: ${input.description}`,
    async run(input, ctx) {
      if (!children.canStart || ctx.children === undefined)
        return { status: 'failed', cause: 'MODEL_ERROR', message: TASK_DEPTH_REFUSAL };
      return ctx.children.run({
        description: input.description,
        prompt: input.prompt,
        agent: input.subagent_type,
        model: input.model,
        toolCallId: ctx.toolCallId ?? 'task',
        signal: ctx.signal,
        onProgress: (message) => ctx.progress?.(message),
        onCost: () => undefined,
      });
    },
  };
}
