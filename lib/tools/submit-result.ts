import { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { FindingInput, SubmitResultInput } from './input-schemas.js';
import type { OutputSchema } from '../output-schema/compile.js';
import type { Finding, Tool } from './types.js';
import { definedOnly } from '../defined-only.js';

/** The input is the result itself: any JSON object, kept verbatim (unknown keys included). */
type Input = z.infer<typeof SubmitResultInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.submit_result!;
const FINDINGS = z.array(FindingInput);

/** The findings of a result, when `findings` is an explicit list of well-formed entries. */
export function extractFindings(result: unknown): Finding[] | undefined {
  if (!result || typeof result !== 'object' || !('findings' in result)) return undefined;
  const parsed = FINDINGS.safeParse((result as { findings: unknown }).findings);
  if (!parsed.success) return undefined;
  return parsed.data.map((f) =>
    f.evidence === undefined
      ? { category: f.category, severity: f.severity, summary: f.summary }
      : { ...f, evidence: f.evidence },
  );
}

const FREE_FORM =
  'Submit the final structured result of the task as a JSON object, once. Put explicit findings in `findings` as {category, severity, summary, evidence?}.';
const TYPED =
  'Submit the final result of the task as a JSON object matching this input schema exactly, once. A result that does not match is refused with the errors: fix them and call submit_result again.';

/**
 * `submit_result`: the run's structured final JSON, at most once per run (a second call fails
 * and the first result stands). Each registry makes its own instance, so "once" is per run.
 * The JSON is passed through verbatim for the summary; `findings` become `finding.detected`.
 * With an output schema the tool's input schema is that schema (adapted for providers) and a
 * result that does not validate against the whole schema is refused with ajv's errors; it
 * does not count as the one submission, so the model can correct it.
 */
export function createSubmitResultTool(outputSchema?: OutputSchema): Tool<Input> {
  let submitted = false;
  return {
    name: 'submit_result',
    description: outputSchema ? TYPED : FREE_FORM,
    inputSchema: SubmitResultInput,
    jsonSchema: outputSchema ? outputSchema.toolSchema : JSON_SCHEMA,
    kind: 'other',
    gated: false,
    readOnly: true,
    title: () => 'submit result',
    async run(input) {
      if (submitted) {
        return {
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: 'submit_result was already called in this run; only the first result is kept',
          hint: 'finish with a plain answer instead of submitting again',
        };
      }
      if (outputSchema) {
        const checked = outputSchema.validate(input);
        if (!checked.ok) {
          return {
            status: 'failed',
            cause: 'MODEL_ERROR',
            message: `the result does not match the output schema:\n${checked.errors.map((e) => `- ${e}`).join('\n')}`,
            hint: 'fix these and call submit_result again with the whole corrected result',
          };
        }
      }
      submitted = true;
      const findings = extractFindings(input);
      const keys = Object.keys(input);
      return definedOnly({
        status: 'completed',
        summary: `result submitted${findings ? ` with ${findings.length} finding${findings.length === 1 ? '' : 's'}` : ''}`,
        output: 'Result recorded.',
        result: input,
        findings,
        receipt: { bytes: Buffer.byteLength(JSON.stringify(input)), lines: keys.length },
      });
    },
  };
}
