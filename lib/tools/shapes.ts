/**
 * Model-native tool shapes. Models are trained on their vendor's tools: Claude 4 and later on
 * the Messages API's schema-less text editor (`text_editor_20250728`, named
 * `str_replace_based_edit_tool`) and bash (`bash_20250124`); OpenAI's GPT-5 family and codex
 * models on the `apply_patch` patch format, sent over the Responses API as a freeform tool
 * constrained by its grammar. A shape decides, for one provider format and model, which entries
 * the provider is offered for the registry's tools, and maps each call the model makes onto one
 * of our tools with our arguments, so policy, approvals, the sandbox, checkpoints and events are
 * those of our tools: a native call is reported as our tool call. The conversation keeps the call
 * as the model made it, since the provider wants it back in its own shape.
 *
 * Every other provider and model gets minicode's own shapes; `tools.shapes: "minicode"` (or
 * `--tool-shapes minicode`) forces them everywhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProviderFormat } from '../decode/formats.js';
import type { ToolCallRequest } from './execute.js';
import type { ToolRegistry } from './index.js';
import type { ToolOutcome } from './types.js';
import { dropExpected } from '../debug.js';
import type { ToolShapeSetting } from './shape-setting.js';

/** The shapes a run can get. */
export type ToolShapeName = 'minicode' | 'anthropic-editor' | 'openai-patch-freeform' | 'openai-patch-function';

/** A tool as the provider is offered it; `native` is the vendor's own entry, sent as it is in place of a function definition. */
export interface OfferedTool {
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
  native?: Record<string, unknown>;
}

/** A model's call as one of ours; with `outcome`, the call needs no tool (a bash restart, a command the editor does not have). */
export interface ShapedCall {
  call: ToolCallRequest;
  outcome?: ToolOutcome;
  /** The call restarts the session's shell (Claude's `restart: true`): back to the workspace root and the base environment. */
  restartShell?: true;
}

/** One provider's and model's tool shape. */
export interface ToolShape {
  name: ToolShapeName;
  /** What the provider is offered for the registry's current tools. */
  offer(registry: ToolRegistry): OfferedTool[];
  /** The model's call as our tool call (same id). `cwd` resolves a path the editor views, to tell a folder from a file. */
  toOurs(call: ToolCallRequest, cwd: string): ShapedCall;
  /**
   * What the system prompt adds so that its tool names match what the model is offered, for a run
   * whose tools are those `has` says yes to (a child's agent definition may leave some out); undefined: nothing.
   */
  noteFor(has: (name: string) => boolean): string | undefined;
  /** True: `bash` keeps its working directory and exported variables between calls (shell-session.ts), as the shape's bash promises. */
  persistentShell: boolean;
}

/** The model name without a router's vendor prefix (`openai/gpt-5` -> `gpt-5`). */
function bareModel(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).toLowerCase();
}

/** Claude 4 and later (the text editor's and bash's current versions); Claude 3.x and unknown models behind the Anthropic format get ours. */
export function isClaudeWithNativeTools(model: string): boolean {
  const match = /claude-(?:[a-z]+-)?(\d+)/.exec(bareModel(model));
  return match !== null && Number(match[1]) >= 4;
}

/** OpenAI models trained on apply_patch: the GPT-5 family and codex models (freeform over Responses), GPT-4.1 (function form, as Codex gives it). */
export function openAiPatchForm(format: ProviderFormat, model: string): 'freeform' | 'function' | undefined {
  const name = bareModel(model);
  const gpt5 = /^(gpt-5|codex)/.test(name);
  if (gpt5) return format === 'openai-responses' ? 'freeform' : 'function';
  if (/^gpt-4\.1/.test(name)) return 'function';
  return undefined;
}

/** The shape a run gets: decided from the wire format and the model name, or minicode's own when the setting says so. */
export function chooseToolShape(
  format: ProviderFormat,
  model: string,
  setting: ToolShapeSetting = 'native',
): ToolShapeName {
  if (setting === 'minicode') return 'minicode';
  if (format === 'anthropic' && isClaudeWithNativeTools(model)) return 'anthropic-editor';
  if (format === 'openai-responses' || format === 'openai-chat') {
    const form = openAiPatchForm(format, model);
    if (form) return form === 'freeform' ? 'openai-patch-freeform' : 'openai-patch-function';
  }
  return 'minicode';
}

/** The shape of a run. */
export function toolShapeFor(format: ProviderFormat, model: string, setting: ToolShapeSetting = 'native'): ToolShape {
  const name = chooseToolShape(format, model, setting);
  if (name === 'anthropic-editor') return ANTHROPIC_EDITOR;
  if (name === 'openai-patch-freeform') return openAiPatch('freeform');
  if (name === 'openai-patch-function') return openAiPatch('function');
  return MINICODE;
}

/**
 * A registry that answers every call with `outcome` and knows no tool, for a call that needs none
 * (a bash restart, an editor command that does not exist): `executeToolCall` still reports it.
 * `before` runs first (a restart of the session's shell).
 */
export function answeredWith(registry: ToolRegistry, outcome: ToolOutcome, before?: () => Promise<void>): ToolRegistry {
  return {
    tools: registry.tools,
    get: () => undefined,
    definitions: () => registry.definitions(),
    invoke: async () => {
      await before?.();
      return outcome;
    },
  };
}

const MINICODE: ToolShape = {
  name: 'minicode',
  offer: (registry) => registry.definitions(),
  toOurs: (call) => ({ call }),
  noteFor: () => undefined,
  persistentShell: false,
};

/** The tools Claude's text editor stands in for, with the one of ours only it reaches. */
const EDITOR_BACKING = ['read_file', 'write_file', 'edit', 'insert_text'] as const;
/** The tools apply_patch stands in for, with apply_patch itself. */
const PATCH_BACKING = ['write_file', 'edit', 'apply_patch'] as const;

/**
 * A selection of tools by name (a child's agent definition) with the tools of ours reached only
 * through a native shape added where it has every tool they stand in for (`insert_text` with
 * read_file, write_file and edit; `apply_patch` with write_file and edit), so that a child gets the
 * shapes its parent gets. They are never offered under minicode's own shapes.
 */
export function withShapeTools(names: readonly string[]): string[] {
  const out = [...names];
  const add = (backing: readonly string[]) => {
    const last = backing.at(-1)!;
    if (backing.slice(0, -1).every((n) => out.includes(n)) && !out.includes(last)) out.push(last);
  };
  add(EDITOR_BACKING);
  add(PATCH_BACKING);
  return out;
}

/** Replace the tools named `replaced` (all must be offered) by `entry`, at the first one's place. */
function replaceTools(offered: OfferedTool[], replaced: readonly string[], entry: OfferedTool): OfferedTool[] {
  if (!replaced.every((name) => offered.some((t) => t.name === name))) return offered;
  const at = offered.findIndex((t) => replaced.includes(t.name));
  const rest = offered.filter((t) => !replaced.includes(t.name));
  rest.splice(at, 0, entry);
  return rest;
}

/** A call's arguments as an object, or undefined when they are not a JSON object. */
function argumentsOf(call: ToolCallRequest): Record<string, unknown> | undefined {
  try {
    const value: unknown = call.argumentsText.trim() === '' ? {} : JSON.parse(call.argumentsText);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // Not JSON: no arguments to reshape.
    return undefined;
  }
}

function failedCall(call: ToolCallRequest, message: string, hint?: string): ShapedCall {
  return { call, outcome: { status: 'failed', cause: 'MODEL_ERROR', message, ...(hint ? { hint } : {}) } };
}

/** Our call with the model's id. */
function ours(call: ToolCallRequest, name: string, args: Record<string, unknown>): ShapedCall {
  return { call: { id: call.id, name, argumentsText: JSON.stringify(args) } };
}

/** The Messages API's text editor name and tool type (Claude 4 and later). */
export const ANTHROPIC_EDITOR_NAME = 'str_replace_based_edit_tool';
export const ANTHROPIC_EDITOR_TYPE = 'text_editor_20250728';
export const ANTHROPIC_BASH_TYPE = 'bash_20250124';

const EDITOR_COMMANDS = ['view', 'create', 'str_replace', 'insert'];

/** The text editor's call as read_file, glob (a folder), write_file, edit or insert_text. */
function editorCall(call: ToolCallRequest, cwd: string): ShapedCall {
  const args = argumentsOf(call);
  if (!args) return failedCall(call, `invalid arguments for ${ANTHROPIC_EDITOR_NAME}: not a JSON object`);
  const { command, path: target } = args;
  const keep = (value: unknown): value is string => typeof value === 'string';
  switch (command) {
    case 'view': {
      if (keep(target) && isFolder(cwd, target)) return ours(call, 'glob', { pattern: '*', path: target });
      const range = Array.isArray(args.view_range) ? args.view_range : undefined;
      const [first, last] = range ?? [];
      const read: Record<string, unknown> = { path: target };
      if (range) {
        read.offset = first;
        if (typeof first === 'number' && typeof last === 'number' && last !== -1) read.limit = last - first + 1;
      }
      return ours(call, 'read_file', read);
    }
    case 'create':
      return ours(call, 'write_file', { path: target, content: args.file_text });
    case 'str_replace':
      // new_str left out deletes old_str.
      return ours(call, 'edit', { path: target, old_string: args.old_str, new_string: args.new_str ?? '' });
    case 'insert':
      // The text is `insert_text` in the current version, `new_str` in earlier ones.
      return ours(call, 'insert_text', {
        path: target,
        insert_line: args.insert_line,
        text: args.insert_text ?? args.new_str,
      });
    default:
      return failedCall(
        call,
        `${ANTHROPIC_EDITOR_NAME} has no command ${JSON.stringify(command)}`,
        `use one of ${EDITOR_COMMANDS.join(', ')}${command === 'undo_edit' ? ' (undo_edit is not available: make the reverse edit)' : ''}`,
      );
  }
}

/** True when `target` is a folder (so the editor's view lists it); a path that cannot be read is left to read_file to report. */
function isFolder(cwd: string, target: string): boolean {
  try {
    return fs.statSync(path.resolve(cwd, target)).isDirectory();
  } catch (error) {
    dropExpected('editor shape: checking for a folder', error, 'ENOENT', 'ENOTDIR', 'EACCES');
    return false;
  }
}

/** What a bash restart answers. */
const RESTARTED =
  'The shell was restarted: the next command starts in the working directory with the initial environment.';

function bashCall(call: ToolCallRequest): ShapedCall {
  const args = argumentsOf(call);
  if (args?.restart === true)
    return {
      call,
      outcome: { status: 'completed', summary: 'bash restarted', output: RESTARTED },
      restartShell: true,
    };
  if (!args) return { call };
  const { restart: _restart, ...rest } = args;
  return ours(call, 'bash', rest);
}

const EDITOR_NOTE =
  'str_replace_based_edit_tool stands in for read_file, write_file and edit (view reads a file or lists a folder, create writes a file, str_replace replaces text that occurs exactly once, insert adds text after a line).';
const BASH_NOTE =
  'bash keeps its working directory and exported variables from one command to the next (shell functions, aliases and options do not carry over); it stays inside the working directory, and restart goes back to it with the initial environment.';

const ANTHROPIC_EDITOR: ToolShape = {
  name: 'anthropic-editor',
  offer(registry) {
    let offered: OfferedTool[] = registry.definitions();
    if (EDITOR_BACKING.every((n) => registry.get(n))) {
      offered = replaceTools(offered, ['read_file', 'write_file', 'edit'], {
        name: ANTHROPIC_EDITOR_NAME,
        description: '',
        jsonSchema: {},
        native: { type: ANTHROPIC_EDITOR_TYPE, name: ANTHROPIC_EDITOR_NAME },
      });
    }
    return offered.map((t) =>
      t.name === 'bash'
        ? { ...t, jsonSchema: {}, description: '', native: { type: ANTHROPIC_BASH_TYPE, name: 'bash' } }
        : t,
    );
  },
  toOurs(call, cwd) {
    if (call.name === ANTHROPIC_EDITOR_NAME) return editorCall(call, cwd);
    if (call.name === 'bash') return bashCall(call);
    return { call };
  },
  noteFor(has) {
    const parts = [EDITOR_BACKING.every(has) ? EDITOR_NOTE : undefined, has('bash') ? BASH_NOTE : undefined].filter(
      (p) => p !== undefined,
    );
    return parts.length > 0 ? `Tools in this run: ${parts.join(' ')}` : undefined;
  },
  persistentShell: true,
};

/** The grammar the freeform apply_patch tool is constrained by (Lark syntax, as the Responses API takes it). */
export const APPLY_PATCH_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

/** The freeform tool's description: the grammar says the format, this says what it is for. */
const FREEFORM_DESCRIPTION =
  'Edit files: add, update, move or delete several files in one patch. This is a freeform tool: send the patch itself, not JSON. Paths are relative to the working directory.';

function openAiPatch(form: 'freeform' | 'function'): ToolShape {
  return {
    name: form === 'freeform' ? 'openai-patch-freeform' : 'openai-patch-function',
    offer(registry) {
      const patch = registry.get('apply_patch');
      const offered = registry.definitions();
      if (!patch || !PATCH_BACKING.every((n) => registry.get(n))) return offered;
      const entry: OfferedTool =
        form === 'freeform'
          ? {
              name: 'apply_patch',
              description: FREEFORM_DESCRIPTION,
              jsonSchema: {},
              native: {
                type: 'custom',
                name: 'apply_patch',
                description: FREEFORM_DESCRIPTION,
                format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_GRAMMAR },
              },
            }
          : { name: 'apply_patch', description: patch.description, jsonSchema: patch.jsonSchema };
      return replaceTools(offered, ['write_file', 'edit'], entry);
    },
    toOurs(call) {
      // The freeform tool's input is the patch itself; ours takes it as {input}.
      if (form === 'freeform' && call.name === 'apply_patch')
        return ours(call, 'apply_patch', { input: call.argumentsText });
      return { call };
    },
    noteFor: (has) =>
      PATCH_BACKING.every(has)
        ? 'Tools in this run: apply_patch stands in for write_file and edit: create, change, move and delete files with it.'
        : undefined,
    persistentShell: false,
  };
}
