/**
 * The secret rules of the scrubber as ONE combined regex: the floor of bench/scrub.ts and the
 * secret stage of the peer assembly (bench/support/peer-assembly.ts). Every vendor pattern,
 * keyword assignment, URL password, curl -u, Authorization and PEM header as one alternation
 * with the `g` flag.
 */
import { DEFAULT_RULES } from '../../lib/scrub/secret-rules.js';

/** `[Ss][Ee]...`: a case-insensitive literal without the `i` flag (one regex, mixed cases). */
function ci(word: string): string {
  return [...word]
    .map((ch) =>
      /[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'),
    )
    .join('');
}

/** Every rule of the table as one alternation (hand-written equivalents for the detectors). */
export function combinedRegex(): RegExp {
  const alternatives: string[] = [];
  for (const rule of DEFAULT_RULES) {
    if (rule.source === undefined) continue;
    let pattern = rule.source.pattern;
    if (rule.source.flags.includes('i'))
      pattern = pattern.replace(/authorization|bearer|basic|token|digest|bot|apikey|sso-key|negotiate/g, (w) => ci(w));
    alternatives.push(pattern);
  }
  const keyword = [
    'password',
    'passwd',
    'passphrase',
    'secret',
    'token',
    'api_key',
    'apikey',
    'access_key',
    'private_key',
    'credential',
  ]
    .map(ci)
    .join('|');
  alternatives.push(`(?:${keyword})[\\w.\\-]{0,40}["']?[ \\t]*(?:=|:|:=|=>)[ \\t]*["']?[^\\s"',;&]{6,256}`);
  alternatives.push(`://[^\\s:@/?#]{0,128}:[^\\s@/]{1,256}@`);
  alternatives.push(`(?:-u|--user)[ \\t=]+["']?[^\\s:"']*:[^\\s"']+`);
  return new RegExp(alternatives.join('|'), 'g');
}
