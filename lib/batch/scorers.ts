/**
 * A line's `expect`: scorers that check a run's answer beside its verify command. Each gives one
 * {@link ScoreResult} in the record's `scores`, in a fixed order (equals, includes, regex,
 * jsonSchema, model), and the run passes only when every one passed (evaluation.ts). They read the
 * run's final text (`equals`, `includes`, `regex`), its typed result from `submit_result`
 * (`jsonSchema`), or both with the task (`model`); a run that did not complete is scored as
 * failed without looking (no grader is called).
 *
 * - `equals`: the final text, trimmed, is exactly this text (trimmed).
 * - `includes`: the final text contains this text, or every text of an array.
 * - `regex`: the final text matches this JavaScript regular expression (no flags; write `(?i)`-free
 *   patterns, e.g. `[Yy]es`).
 * - `jsonSchema`: the typed result is valid against this JSON Schema (the same validator as
 *   `--output-schema`); no typed result fails.
 * - `model`: a grader model scores the answer against a rubric (grader.ts); a grader that fails
 *   or answers no verdict is this scorer's error, never the run's.
 */
import { z } from 'zod';
import type { BatchRecord, ScoreResult } from './records.js';
import { gradeRecord, ModelScorerSchema, type GraderContext } from './grader.js';

/** The `expect` field of an input line. */
export const ExpectSchema = z
  .object({
    equals: z.string().optional(),
    includes: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    regex: z
      .string()
      .min(1)
      .refine(
        (source) => {
          try {
            new RegExp(source);
            return true;
          } catch {
            // Reported as the line's shape error below.
            return false;
          }
        },
        { message: 'not a valid regular expression' },
      )
      .optional(),
    jsonSchema: z.record(z.string(), z.unknown()).optional(),
    model: ModelScorerSchema.optional(),
  })
  .strict()
  .refine((e) => Object.keys(e).length > 0, {
    message: 'expect needs at least one of equals, includes, regex, jsonSchema, model',
  });

/** A line's scorers. */
export type Expect = z.infer<typeof ExpectSchema>;

/** Characters of a failed scorer's detail kept in the record. */
const DETAIL_CHARS = 200;

const clip = (text: string): string => (text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text);

/** What scoring needs beyond the record: the line's prompt and, for `model`, the grader's context. */
export interface ScoringContext {
  /** The line's prompt (the grader reads it). */
  task?: string | undefined;
  /** Absent: a `model` scorer fails with MINICODE_E_GRADER (no grader here). */
  grader?: GraderContext | undefined;
}

/** Score a record against a line's `expect`; the results in the fixed scorer order. Pure but for the `model` scorer's grader run. */
export async function scoreRecord(
  record: BatchRecord,
  expect: Expect,
  context: ScoringContext = {},
): Promise<ScoreResult[]> {
  const completed = record.kind === 'result';
  const text = completed ? record.finalText : '';
  const out: ScoreResult[] = [];
  const verdict = (scorer: string, passed: boolean, detail: string): void => {
    out.push(
      passed
        ? { scorer, passed }
        : { scorer, passed, detail: clip(completed ? detail : `the run did not complete (${record.reason})`) },
    );
  };
  if (expect.equals !== undefined)
    verdict(
      'equals',
      completed && text.trim() === expect.equals.trim(),
      `the answer is not ${JSON.stringify(expect.equals)}`,
    );
  if (expect.includes !== undefined) {
    const missing = (Array.isArray(expect.includes) ? expect.includes : [expect.includes]).filter(
      (part) => !text.includes(part),
    );
    verdict(
      'includes',
      completed && missing.length === 0,
      `the answer lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}`,
    );
  }
  if (expect.regex !== undefined)
    verdict('regex', completed && new RegExp(expect.regex).test(text), `the answer does not match /${expect.regex}/`);
  if (expect.jsonSchema !== undefined) {
    const result = completed ? record.result : undefined;
    if (result === undefined) verdict('jsonSchema', false, 'no typed result (submit_result was not called)');
    else {
      const { compileOutputSchema } = await import('../output-schema/compile.js');
      let check: { ok: true } | { ok: false; errors: string[] };
      try {
        check = compileOutputSchema(expect.jsonSchema, 'expect.jsonSchema').validate(result);
      } catch (error) {
        check = { ok: false, errors: [`the schema is not usable: ${(error as Error).message}`] };
      }
      verdict('jsonSchema', check.ok, check.ok ? '' : check.errors.join('; '));
    }
  }
  if (expect.model !== undefined) {
    if (record.kind !== 'result') verdict('model', false, '');
    else if (!context.grader) {
      const message = 'no grader is available where this record was scored';
      out.push({ scorer: 'model', passed: false, detail: message, error: { code: 'MINICODE_E_GRADER', message } });
    } else out.push(await gradeRecord(record, context.task ?? '', expect.model, context.grader));
  }
  return out;
}
