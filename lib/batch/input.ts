/**
 * Batch input: a JSONL file, one prompt per line (`{"id", "prompt", ...}`). Parsing is pure and
 * total: every line becomes either a {@link BatchLine} or a {@link LineProblem} carrying its
 * 1-based line number, so no line is ever silently dropped. Blank lines are not records and are
 * skipped without a problem. Duplicate ids are collected separately: they make the whole
 * batch ambiguous (which result belongs to which line?), so the caller refuses to run.
 */
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/settings.js';
import { z } from 'zod';
import { NATIVE_AGENTS, type NativeAgent } from '../decode/formats.js';
import { REASONING_LEVELS, type ReasoningLevel } from '../agent/requests/types.js';
import { neutralise } from '../safe-text.js';
import { definedOnly } from '../defined-only.js';
import { MAX_EPOCHS } from './attempts.js';
import { MAX_TIMER_MS } from '../control/timers.js';
import { ExpectSchema, type Expect } from './scorers.js';

/** The fields of one input line. */
const LineFields = z.object({
  // No NUL: a run's key is the id, a NUL and its attempt (attempts.ts), which no id may spell.
  id: z
    .union([
      z
        .string()
        .min(1)
        .max(512)
        .regex(/^[^\u0000]*$/, 'an id may not contain a NUL character'),
      z.number().int(),
    ])
    .transform(String),
  // Whitespace only is as empty as nothing: it would be sent to the model as a prompt.
  prompt: z.string().regex(/\S/),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  agent: z.enum(NATIVE_AGENTS).optional(),
  /** Agents that take over, in order, when the line's agent runs out of usage quota. */
  fallback: z.union([z.enum(NATIVE_AGENTS).transform((a) => [a]), z.array(z.enum(NATIVE_AGENTS)).min(1)]).optional(),
  cwd: z.string().min(1).optional(),
  budget: z.number().nonnegative().optional(),
  max_steps: z.number().int().positive().optional(),
  reasoning: z.enum(REASONING_LEVELS).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Command run in the line's workspace after the run (overrides --verify). */
  verify: z.string().regex(/\S/).optional(),
  /** The sandbox of this line's commands (wins over `--sandbox`). */
  sandbox: z.enum(SANDBOX_MODES).optional(),
  /** Replaces the system prompt of this line's run (text, as `--system-prompt`'s file holds). */
  system: z.string().optional(),
  /** `false`: no project instructions; text: these instead of the AGENTS.md files of the line's folder. */
  instructions: z.union([z.literal(false), z.string()]).optional(),
  /** A JSON Schema the line's result must match (as `--output-schema`'s file holds). */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Runs of this line (wins over `--epochs`), each its own session and record. */
  epochs: z.number().int().positive().max(MAX_EPOCHS).optional(),
  /** Wall-clock limit of this line in ms: run, verify and scorers (wins over `--line-timeout`). */
  timeout: z.number().int().positive().max(MAX_TIMER_MS).optional(),
  /** Scorers of the run's answer beside verify (scorers.ts). */
  expect: ExpectSchema.optional(),
  /** Image files sent with the prompt (as `exec -i`), relative to the line's cwd. */
  images: z.array(z.string().min(1)).min(1).max(20).optional(),
});

/** The schema of one input line; unknown keys are kept out of the run but allowed (and reported: {@link ParsedInput.unknownKeys}). */
export const BatchLineSchema = LineFields.superRefine((data, ctx) => {
  if (data.agent !== undefined) {
    for (const key of ['system', 'instructions', 'outputSchema', 'images'] as const) {
      if (data[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${key} is for minicode's own agent; a native agent reads its own`,
        });
    }
  }
  if (data.fallback === undefined) return;
  if (data.agent === undefined)
    ctx.addIssue({ code: 'custom', path: ['fallback'], message: 'fallback needs agent (the agent that starts)' });
  else if (new Set([data.agent, ...data.fallback]).size !== data.fallback.length + 1)
    ctx.addIssue({ code: 'custom', path: ['fallback'], message: 'each agent may appear once in agent and fallback' });
});

/** One runnable line. */
export interface BatchLine {
  id: string;
  /** 1-based line number in the input file. */
  line: number;
  prompt: string;
  provider?: string;
  model?: string;
  agent?: NativeAgent;
  /** Fallback agents (`run --fallback`); only with `agent`. */
  fallback?: NativeAgent[];
  cwd?: string;
  budget?: number;
  maxSteps?: number;
  /** Reasoning effort of this line's run (wins over `--reasoning`). */
  reasoning?: ReasoningLevel;
  metadata?: Record<string, unknown>;
  /** Verify command for this line. */
  verify?: string;
  /** Sandbox mode of this line's `bash`, verify and MCP servers (wins over `--sandbox`). */
  sandbox?: SandboxMode;
  /** The line's system prompt, in place of the batch's. */
  system?: string;
  /** The line's instructions: none, or this text in place of the AGENTS.md files. */
  instructions?: false | string;
  /** The line's output schema (compiled when the line runs: a bad one is the line's error record). */
  outputSchema?: Record<string, unknown>;
  /** Runs of this line (wins over `--epochs`). */
  epochs?: number;
  /** Wall-clock limit of the whole line in ms (wins over `--line-timeout`). */
  timeout?: number;
  /** Scorers of the run's answer (scorers.ts). */
  expect?: Expect;
  /** Which of the line's runs this is, 1-based (set when the batch expands its epochs, attempts.ts). */
  attempt?: number;
  /** Image files sent with the prompt, relative to the line's cwd (read when the line runs: a bad one is the line's error record). */
  images?: string[];
}

/** Why a line was not runnable. */
export interface LineProblem {
  line: number;
  /** `MINICODE_E_BATCH_LINE_JSON` (not JSON) or `MINICODE_E_BATCH_LINE_SHAPE` (JSON, wrong fields). */
  code: 'MINICODE_E_BATCH_LINE_JSON' | 'MINICODE_E_BATCH_LINE_SHAPE';
  message: string;
  /** The id, when the line had a readable one. */
  id?: string;
}

/** An id that appears on more than one line. */
export interface DuplicateId {
  id: string;
  lines: number[];
}

/** A key that is not a line field, with the lines (of runnable lines) that have it. */
export interface UnknownKey {
  key: string;
  lines: number[];
  /** The field it probably meant (`maxSteps` for `max_steps`), when one matches. */
  field?: string;
}

/** The parsed input. */
export interface ParsedInput {
  lines: BatchLine[];
  problems: LineProblem[];
  duplicates: DuplicateId[];
  /** Keys that are not line fields: allowed, but a misspelt field (`maxSteps`) would be ignored without a word. */
  unknownKeys: UnknownKey[];
}

const FIELDS = Object.keys(LineFields.shape);
const fold = (key: string): string => key.toLowerCase().replace(/[_-]/g, '');

function lineOf(data: z.infer<typeof BatchLineSchema>, line: number): BatchLine {
  const out: BatchLine = { id: data.id, line, prompt: data.prompt };
  if (data.provider !== undefined) out.provider = data.provider;
  if (data.model !== undefined) out.model = data.model;
  if (data.agent !== undefined) out.agent = data.agent;
  if (data.fallback !== undefined) out.fallback = data.fallback;
  if (data.cwd !== undefined) out.cwd = data.cwd;
  if (data.budget !== undefined) out.budget = data.budget;
  if (data.max_steps !== undefined) out.maxSteps = data.max_steps;
  if (data.reasoning !== undefined) out.reasoning = data.reasoning;
  if (data.metadata !== undefined) out.metadata = data.metadata;
  if (data.verify !== undefined) out.verify = data.verify;
  if (data.sandbox !== undefined) out.sandbox = data.sandbox;
  if (data.system !== undefined) out.system = data.system;
  if (data.instructions !== undefined) out.instructions = data.instructions;
  if (data.outputSchema !== undefined) out.outputSchema = data.outputSchema;
  if (data.epochs !== undefined) out.epochs = data.epochs;
  if (data.timeout !== undefined) out.timeout = data.timeout;
  if (data.expect !== undefined) out.expect = data.expect;
  if (data.images !== undefined) out.images = data.images;
  return out;
}

/** Parse one line's text (without its newline); `undefined` for a blank line. */
export function parseLine(
  text: string,
  line: number,
  onUnknownKey?: (key: string) => void,
): BatchLine | LineProblem | undefined {
  if (text.trim() === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the line around the fault: its control characters are shown escaped.
    return {
      line,
      code: 'MINICODE_E_BATCH_LINE_JSON',
      message: neutralise(`line ${line} is not JSON: ${(error as Error).message}`),
    };
  }
  const parsed = BatchLineSchema.safeParse(raw);
  if (parsed.success) {
    if (onUnknownKey) for (const key of Object.keys(raw as object)) if (!FIELDS.includes(key)) onUnknownKey(key);
    return lineOf(parsed.data, line);
  }
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'line';
  const problem: LineProblem = {
    line,
    code: 'MINICODE_E_BATCH_LINE_SHAPE',
    message: neutralise(`line ${line}: ${where}: ${issue?.message ?? 'invalid'}`),
  };
  const id = (raw as { id?: unknown } | null)?.id;
  if (typeof id === 'string' || typeof id === 'number') problem.id = String(id);
  return problem;
}

/** Parse a whole input (CRLF tolerated). */
export function parseBatchInput(text: string): ParsedInput {
  const lines: BatchLine[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, number[]>();
  const unknown = new Map<string, number[]>();
  // A UTF-8 byte order mark (files written by Windows tools) would make the first line not JSON.
  const rows = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const result = parseLine(row.endsWith('\r') ? row.slice(0, -1) : row, i + 1, (key) => {
      const at = unknown.get(key);
      if (at) at.push(i + 1);
      else unknown.set(key, [i + 1]);
    });
    if (result === undefined) continue;
    if ('code' in result) {
      problems.push(result);
      continue;
    }
    lines.push(result);
    const at = seen.get(result.id);
    if (at) at.push(result.line);
    else seen.set(result.id, [result.line]);
  }
  const duplicates: DuplicateId[] = [];
  for (const [id, at] of seen) if (at.length > 1) duplicates.push({ id, lines: at });
  const unknownKeys: UnknownKey[] = [];
  for (const [key, at] of unknown) {
    const field = FIELDS.find((f) => fold(f) === fold(key));
    unknownKeys.push(definedOnly({ key, lines: at, field: field || undefined }));
  }
  return { lines, problems, duplicates, unknownKeys };
}
