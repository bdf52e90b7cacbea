import { applyPatchTool } from './apply-patch.js';
import { createSkillTool } from './skill.js';
import type { SkillCatalogue } from '../extensions/skills.js';
import { askUserTool } from './ask-user.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { gitCommitTool } from './git-commit.js';
import { globTool } from './glob.js';
import { describeInputIssues } from './input-issues.js';
import { grepTool } from './grep.js';
import { insertTextTool } from './insert-text.js';
import { readFileTool } from './read-file.js';
import { createSubmitResultTool } from './submit-result.js';
import { createUpdatePlanTool } from './update-plan.js';
import type { AnyTool, ChildSessions, ToolContext, ToolOutcome } from './types.js';
import { createTaskTool } from './task.js';
import { readImageTool } from './read-image.js';
import type { OutputSchema } from '../output-schema/compile.js';
import { writeFileTool } from './write-file.js';

export * from './types.js';

/** A tool as providers see it: name, description and a JSON Schema of its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
}

/** The tools of one run, by name. */
export interface ToolRegistry {
  readonly tools: ReadonlyMap<string, AnyTool>;
  get(name: string): AnyTool | undefined;
  /** Provider-facing definitions of minicode's own tool list, in registration order (tools reached only through a native shape are left out). */
  definitions(): ToolDefinition[];
  /**
   * Validate the model's arguments text and run the tool. Unknown tools, bad JSON and schema
   * mismatches are `failed` outcomes the model can correct, never throws.
   */
  invoke(name: string, argumentsText: string, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Parse a tool call's arguments text; an empty text means `{}` (some providers send none). */
export function parseArguments(argumentsText: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (argumentsText.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(argumentsText) };
  } catch (error) {
    return { ok: false, message: `arguments are not valid JSON: ${(error as Error).message}` };
  }
}

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryOptions {
  /** Only these tools (by name); default all. */
  only?: readonly string[];
  /**
   * Extra tools (e.g. MCP tools, which must be `gated`), or a function giving the current ones:
   * a source whose list changes during a run (MCP `tools/list_changed`) is read at each use.
   */
  extra?: readonly AnyTool[] | (() => readonly AnyTool[]) | undefined;
  /** The typed result's schema: `submit_result` takes it as its input schema and validates against it. */
  outputSchema?: OutputSchema | undefined;
  /** Child sessions the run may start: the `task` tool is added for them (offered below the depth limit). */
  children?: ChildSessions | undefined;
  /** The run's skills: the `skill` tool is added when there is one. */
  skills?: SkillCatalogue | undefined;
}

/**
 * A fresh set of tools for one run. Fresh matters: `submit_result` counts its calls per
 * instance, so two runs never share "already submitted"; `update_plan` knows its first call.
 */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const builtIn: AnyTool[] = [
    readFileTool,
    writeFileTool,
    editTool,
    bashTool,
    grepTool,
    globTool,
    gitCommitTool,
    createSubmitResultTool(options.outputSchema),
    createUpdatePlanTool(),
    askUserTool,
    readImageTool,
    applyPatchTool,
    insertTextTool,
  ];
  if (options.children) builtIn.push(createTaskTool(options.children));
  if (options.skills && options.skills.skills.length > 0) builtIn.push(createSkillTool(options.skills));
  const extraOf =
    typeof options.extra === 'function' ? options.extra : () => (options.extra as readonly AnyTool[] | undefined) ?? [];
  // Rebuilt only when the extra list is a new array (the MCP manager replaces it on a change).
  let seenExtra: readonly AnyTool[] | undefined;
  let selected: AnyTool[] = [];
  let tools = new Map<string, AnyTool>();
  const current = (): Map<string, AnyTool> => {
    const extra = extraOf();
    if (extra !== seenExtra) {
      seenExtra = extra;
      const all = [...builtIn, ...extra];
      selected = options.only ? all.filter((t) => options.only!.includes(t.name)) : all;
      tools = new Map(selected.map((t) => [t.name, t] as const));
    }
    return tools;
  };
  return {
    get tools() {
      return current();
    },
    get: (name) => current().get(name),
    definitions: () => {
      current();
      return selected
        .filter((t) => t.offered !== false)
        .map((t) => ({ name: t.name, description: t.description, jsonSchema: t.jsonSchema }));
    },
    async invoke(name, argumentsText, ctx) {
      const tools = current();
      const tool = tools.get(name);
      if (!tool)
        return {
          status: 'failed',
          cause: 'MODEL_ERROR',
          message: `unknown tool ${name}`,
          hint: `available tools: ${[...tools.keys()].join(', ')}`,
        };
      const parsed = parseArguments(argumentsText);
      if (!parsed.ok) return { status: 'failed', cause: 'MODEL_ERROR', message: parsed.message };
      const checked = tool.inputSchema.safeParse(parsed.value);
      if (!checked.success) {
        return {
          status: 'failed',
          cause: 'MODEL_ERROR',
          message: describeInputIssues(name, checked.error.issues, parsed.value),
        };
      }
      // submit_result keeps the model's JSON verbatim, not zod's re-built copy.
      const input = name === 'submit_result' ? parsed.value : checked.data;
      try {
        return await tool.run(input, ctx);
      } catch (error) {
        return { status: 'failed', cause: 'INTERNAL_ERROR', message: `${name} crashed: ${(error as Error).message}` };
      }
    },
  };
}
