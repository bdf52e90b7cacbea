/**
 * The one writer of the files minicode leaves behind for people and programs: batch records
 * (`results.jsonl`, `errors.jsonl`, `summary.json`), the batch report (`report.html`), cassettes,
 * the prompt history, patches. Every byte of them passes through the scrubber: its secret rules
 * plus the exact credential values of the environment (the rule of
 * lib/scrub/credential-rule.ts). Text files are scrubbed as text ({@link writeArtefact}); JSON
 * is scrubbed value by value before it is serialised ({@link artefactLine},
 * {@link writeJsonArtefact}), as the scrub stage does for events: a rule run over serialised
 * JSON would take `"firstTokenMs":182}` for a token assignment and cut the record's brace off.
 * A string under a key that names a credential (`"password": "..."`) is judged by the
 * credential rule with that key as its name, since without the key nothing in it says secret. A writer that quotes input (a prompt, a line's metadata, a
 * verify command's output) therefore cannot leak it by forgetting to scrub: the layer does it,
 * not each caller. Files are created 0600 (they hold prompts and model output), written whole
 * under a temporary name and renamed, so a reader never sees half a file.
 *
 * What is not here: the LMDB store (every event reaches it through the pipeline's scrub stage)
 * and copies of workspace files (checkpoint objects, worktrees), which are the user's own bytes.
 */
import fs from 'node:fs';
import { credentialSecretsFromEnv, credentialVerdict, isCredentialName } from './scrub/credential-rule.js';
import { buildRuleTable, createTextRedactor } from './scrub/secret-redactor.js';
import { PRIVATE_FILE_MODE, replaceFile } from './private-files.js';

export { PRIVATE_FILE_MODE } from './private-files.js';

const redactors = new WeakMap<object, (text: string) => string>();

/**
 * The redactor of everything minicode writes or prints outside the event pipeline: the built-in
 * rules plus the credential values of `env` (default `process.env`), compiled once per
 * environment object.
 */
export function outputRedactor(
  env: Readonly<Record<string, string | undefined>> = process.env,
): (text: string) => string {
  let redact = redactors.get(env);
  if (!redact) {
    redact = createTextRedactor(buildRuleTable(credentialSecretsFromEnv(env)));
    redactors.set(env, redact);
  }
  return redact;
}

/** `text` with every secret masked, as it may be written to a file. */
export function scrubArtefact(text: string, env?: Readonly<Record<string, string | undefined>>): string {
  return outputRedactor(env)(text);
}

/** A copy of a JSON value with every string scrubbed (keys kept); a credential-named key's string is masked whole. */
export function scrubArtefactValue<T>(value: T, env?: Readonly<Record<string, string | undefined>>): T {
  const redact = outputRedactor(env);
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (typeof v === 'string') {
      const scrubbed = redact(v);
      // Nothing in the text says secret; its key may (`"password": "..."`).
      if (scrubbed === v && key !== undefined && isCredentialName(key) && credentialVerdict(key, v).mask)
        return '[REDACTED:secret]';
      return scrubbed;
    }
    if (Array.isArray(v)) return v.map((item) => walk(item, key));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item, k);
      return out;
    }
    return v;
  };
  return walk(value, undefined) as T;
}

/** One JSONL line (with its newline) of `value`, scrubbed value by value. */
export function artefactLine(value: unknown, env?: Readonly<Record<string, string | undefined>>): string {
  return `${JSON.stringify(scrubArtefactValue(value, env))}\n`;
}

/** Options of {@link writeArtefact}. */
export interface ArtefactWriteOptions {
  /** Environment whose credential values are masked; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Mode of a file created; default 0600. */
  mode?: number;
}

/** Write `text` scrubbed to `file` whole: under a temporary name, then renamed over it. */
export function writeArtefact(file: string, text: string, options: ArtefactWriteOptions = {}): void {
  replaceFile(file, scrubArtefact(text, options.env), options.mode);
}

/** Write `value` as JSON (indented by `indent`, default 2) scrubbed value by value, whole as {@link writeArtefact} does. */
export function writeJsonArtefact(
  file: string,
  value: unknown,
  options: ArtefactWriteOptions & { indent?: number } = {},
): void {
  replaceFile(
    file,
    `${JSON.stringify(scrubArtefactValue(value, options.env), null, options.indent ?? 2)}\n`,
    options.mode,
  );
}

/** Append `value` as one scrubbed JSONL line to `file` (created 0600). */
export function appendArtefactLine(file: string, value: unknown, options: ArtefactWriteOptions = {}): void {
  fs.appendFileSync(file, artefactLine(value, options.env), { mode: options.mode ?? PRIVATE_FILE_MODE });
}
