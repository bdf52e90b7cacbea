/**
 * Escaping for the report. Everything that comes from records, prompts or summaries is hostile
 * input (a prompt or a model's answer can hold markup, a script, a bidi override that makes a
 * line read backwards): text is HTML-escaped after controls are made visible, and data handed
 * to the page's script is JSON with every character that could end a `<script>` escaped.
 */

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// C0 controls but tab and newline, DEL, C1 controls, and the bidi and invisible formatting characters.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Text for an element or an attribute value: controls shown as `\uXXXX`, markup escaped. */
export function escapeHtml(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/[&<>"']/g, (c) => HTML[c]!);
}

/** JSON safe inside `<script type="application/json">`: no `<`, `>`, `&`, U+2028 or U+2029 left as such. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The head of a text, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A relative link to a line's patch, only when the record's `patch` has the shape the batch
 * writes (`patches/<file>.diff`, no `..`, no scheme): a tampered record cannot make a link to
 * anywhere else. `prefix` leads from the report's folder to the run's folder.
 */
export function patchHref(patch: unknown, prefix: string): string | undefined {
  if (typeof patch !== 'string' || !/^patches\/[^/\\]+\.diff$/.test(patch) || patch.includes('..')) return undefined;
  const file = patch.slice('patches/'.length);
  const rel = `${prefix}patches/${encodeURIComponent(file)}`;
  return rel;
}
