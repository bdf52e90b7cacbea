/**
 * Values that only refer to a secret: `$PASSWORD`, `${{ secrets.X }}`, `<token>`, `{{pass}}`,
 * `%s`, `YOUR_API_KEY`, `***`, an already-redacted marker. Redacting them hides useful text and
 * leaks nothing, so context detectors leave them alone.
 */

const REFERENCE_START = /^(?:\$|\{|<|%[sd({]|#\{|\[REDACTED|\.\.\.)/;
const WORDS =
  /^(?:x+|\*+|\.+|-+|_+|#+|null|nil|none|true|false|undefined|empty|string|str|required|optional|changeme|placeholder|example|secret|password|passwd|token|value|redacted|hidden|masked|\*{3}.*|.*\[redacted\].*)$/i;

/** True when `value` is a reference or placeholder rather than a secret. */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0) return true;
  if (REFERENCE_START.test(value)) return true;
  if (WORDS.test(value)) return true;
  if (/redacted/i.test(value)) return true;
  // ENV_VAR_NAME or YOUR_API_KEY style (all caps and underscores, with an underscore or a YOUR).
  if (/^[A-Z][A-Z0-9_]*$/.test(value) && (value.includes('_') || /^YOUR/.test(value))) return true;
  if (/^(?:your|my|some|the)[_-]/i.test(value)) return true;
  return false;
}
