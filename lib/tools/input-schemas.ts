/**
 * The built-in tools' input schemas, in zod: what a model's tool arguments are checked with, the
 * tools' input types, and the one source of the JSON Schemas providers are sent. Those are
 * written to input-json-schemas.ts by `node dist/scripts/gen-tool-schemas.js` (a test keeps the
 * file current), because generating them at run time would cost every run more than reading them.
 */
import { z } from 'zod';

/** `read_file`. */
export const ReadFileInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  offset: z.number().int().min(1).optional().describe('First line to show (1-based); default 1'),
  limit: z.number().int().min(1).optional().describe('How many lines to show; default 2000'),
});

/** `write_file`. */
export const WriteFileInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  content: z.string().describe('The whole new content of the file'),
});

/** `edit`. */
export const EditInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  old_string: z
    .string()
    .min(1)
    .describe('Exact text to replace, including whitespace; must occur exactly once unless replace_all'),
  new_string: z.string().describe('Replacement text'),
  replace_all: z.boolean().optional().describe('Replace every occurrence; default false'),
});

/** `bash`. */
export const BashInput = z.object({
  command: z.string().min(1).describe('A bash command line, run with `bash -c` in the workspace'),
  timeout_ms: z.number().int().min(1).max(600_000).optional().describe('Deadline in milliseconds; default 120000'),
});

/** `grep`. */
export const GrepInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for'),
  path: z.string().optional().describe('File or directory to search; default the workspace'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. `*.ts`'),
  ignore_case: z.boolean().optional().describe('Case-insensitive; default false'),
});

/** `glob`. */
export const GlobInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob such as `**/*.ts` or `src/*.{js,mjs}`; without a slash it matches file names at any depth'),
  path: z.string().optional().describe('Directory to search; default the workspace'),
});

/** `git_commit`. */
export const GitCommitInput = z.object({
  message: z.string().min(1).describe('Commit message'),
  paths: z
    .array(z.string().min(1))
    .optional()
    .describe('Paths to stage first; default: every tracked change (git add -u)'),
});

/** One finding of `submit_result`. */
export const FindingInput = z.object({
  category: z.string(),
  severity: z.string(),
  summary: z.string(),
  evidence: z.unknown().optional(),
});

/** `submit_result`: the input is the result itself, any JSON object, kept verbatim (unknown keys included). */
export const SubmitResultInput = z
  .object({
    findings: z.array(FindingInput).optional().describe('Explicit findings {category, severity, summary, evidence?}'),
  })
  .catchall(z.unknown());

/**
 * `update_plan` (Codex's input: an optional explanation and the whole plan, each step with its
 * status). Its one rule JSON Schema cannot say, at most one step in progress, is a refinement
 * (left out of the JSON Schema).
 */
export const UpdatePlanInput = z
  .object({
    explanation: z.string().optional().describe('Why the plan is what it is, or what changed'),
    plan: z
      .array(
        z.object({
          step: z.string().min(1).describe('One short step'),
          status: z.enum(['pending', 'in_progress', 'completed']),
        }),
      )
      .min(1)
      .describe('The whole plan, in order'),
  })
  .refine((input) => input.plan.filter((s) => s.status === 'in_progress').length <= 1, {
    path: ['plan'],
    message: 'at most one step may be in_progress',
  });

/** `ask_user`. */
export const AskUserInput = z.object({
  question: z.string().min(1).describe('One clear question for the user'),
});

/**
 * `task` (the input Claude's models are trained on for their Task tool: a short description,
 * the prompt the child works from, the agent definition to run), plus an optional model.
 */
export const TaskInput = z.object({
  description: z.string().min(1).describe('A short (3-5 word) description of the task'),
  prompt: z
    .string()
    .min(1)
    .describe(
      'The task for the agent to perform: everything it needs to know, since it does not see this conversation',
    ),
  subagent_type: z
    .string()
    .min(1)
    .describe('The type of agent to use: general (all your tools), explore (read-only tools), or a defined agent'),
  model: z.string().min(1).optional().describe("A model for the child; default the agent definition's, else yours"),
});

/** `skill`: load one skill by name. */
export const SkillInput = z.object({
  name: z.string().min(1).describe('The name of the skill, as listed in the system prompt'),
});

/** `apply_patch` (offered to OpenAI's coding models in place of write_file and edit): the whole patch, `*** Begin Patch` to `*** End Patch`. */
export const ApplyPatchInput = z.object({
  input: z.string().min(1).describe('The whole patch, from *** Begin Patch to *** End Patch'),
});

/** `insert_text` (the Anthropic text editor's `insert` command): text placed after a line. */
export const InsertTextInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace'),
  insert_line: z.number().int().min(0).describe('The line after which the text goes; 0 puts it before the first line'),
  text: z.string().describe('The text to insert'),
});

/** `read_image`: one image file of the workspace, for the model to look at. */
export const ReadImageInput = z.object({
  path: z.string().min(1).describe('Image file path (PNG, JPEG, GIF or WebP), relative to the workspace'),
});

/** Every built-in tool's input schema, by tool name. */
export const TOOL_INPUT_SCHEMAS = {
  read_file: ReadFileInput,
  write_file: WriteFileInput,
  edit: EditInput,
  bash: BashInput,
  grep: GrepInput,
  glob: GlobInput,
  git_commit: GitCommitInput,
  submit_result: SubmitResultInput,
  update_plan: UpdatePlanInput,
  ask_user: AskUserInput,
  task: TaskInput,
  read_image: ReadImageInput,
  skill: SkillInput,
  apply_patch: ApplyPatchInput,
  insert_text: InsertTextInput,
} as const;

/** The JSON Schema of a zod input schema as providers are sent it (draft 7, the input side, without `$schema`). */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}
