/**
 * One class of terminal-unsafe characters (lib/scrub/terminal-unsafe.ts) and every output form
 * built on it: the event stream's sanitiser, `neutralise` (messages quoting input), `displayText`
 * (the projection) and the chat prompt's `visibleControls`. Each character of the class, between
 * two letters, leaves none of them as it is; the joiners emoji need pass all of them unchanged.
 */
import { describe, expect, it } from 'vitest';
import { visibleControls } from '../../lib/chat/prompt-area.js';
import { displayText } from '../../lib/render/display-text.js';
import { neutralise } from '../../lib/safe-text.js';
import { sanitizeText } from '../../lib/scrub/index.js';
import { terminalUnsafePattern } from '../../lib/scrub/terminal-unsafe.js';

/** Every code point of the class, found by testing all of the BMP and the tag block against its pattern. */
function classMembers(): string[] {
  const pattern = terminalUnsafePattern('');
  const out: string[] = [];
  for (let cp = 0; cp <= 0xffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCharCode(cp);
    if (pattern.test(ch)) out.push(ch);
  }
  for (let cp = 0xe0000; cp <= 0xe007f; cp++) out.push(String.fromCodePoint(cp));
  return out;
}

const FORMS: [string, (text: string) => string][] = [
  ['the scrub stage sanitiser', (t) => sanitizeText(t)],
  ['neutralise', neutralise],
  ['displayText', displayText],
  ['visibleControls', visibleControls],
];

describe('the one terminal-unsafe character class', () => {
  const members = classMembers();

  it('holds the characters each copy once missed: U+2028, U+2029, U+2065, U+FFF9 and the tag characters', () => {
    for (const ch of [
      '\u2028',
      '\u2029',
      '\u2065',
      '\ufff9',
      '\u001b',
      '\u009b',
      '\u202e',
      String.fromCodePoint(0xe0041),
    ])
      expect(members).toContain(ch);
    expect(members.length).toBeGreaterThan(200);
  });

  it.each(FORMS)('is never passed through as it is by %s', (_name, form) => {
    const leaked = members
      .filter((ch) => form(`a${ch}b`).includes(ch))
      .map((ch) => `U+${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
    expect(leaked).toEqual([]);
  });

  it.each(FORMS)('leaves the joiners of emoji and scripts (ZWJ, ZWNJ) to %s unchanged', (_name, form) => {
    for (const text of ['\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', 'می\u200cخواهم']) expect(form(text)).toBe(text);
  });
});
