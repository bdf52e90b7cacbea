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
  return text
    .replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"']/g, (c) => HTML[c]!);
}

/** The head of a text, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The file name of a record's `patch` when it has the shape the batch writes
 * (`patches/<file>.diff`, no `..`, no separator): a tampered record cannot make the report read
 * or link anything else.
 */
export function patchFileOf(patch: unknown): string | undefined {
  if (typeof patch !== 'string' || !/^patches\/[^/\\]+\.diff$/.test(patch) || patch.includes('..')) return undefined;
  return patch.slice('patches/'.length);
}
