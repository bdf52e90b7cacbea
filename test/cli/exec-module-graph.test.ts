/**
 * What `minicode exec` loads at start-up. Per-run cost is measured in bench/exec-cost.ts; this
 * only guards the module graph, so that the exec path does not quietly go back to building the
 * zod event schemas (payloads, envelopes: only validation and the JSON Schema need them) or to
 * loading the native-agent decoders (only `ingest` and `run` need them) or the MCP SDK (only a
 * configured server needs it).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** A module hook that prints every loaded file URL on stderr (hand-written here, not a fixture). */
const HOOKS = `data:text/javascript,${encodeURIComponent(
  "export async function load(url, context, next) { if (url.startsWith('file:')) process._rawDebug('LOADED ' + url); return next(url, context); }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

function loadedBy(script: string): string[] {
  const result = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => path.relative(ROOT, new URL(l.slice('LOADED '.length)).pathname));
}

describe('the exec start-up module graph', () => {
  it('loads the CLI program and the exec action without the event schemas or the native decoders', () => {
    const loaded = loadedBy(`await import('./dist/cli/program.js'); await import('./dist/cli/exec-action.js');`);
    expect(loaded).toContain('dist/cli/exec-action.js');
    expect(loaded).toContain('dist/lib/events/draft.js');
    for (const unwanted of [
      'dist/lib/events/payloads.js',
      'dist/lib/events/envelope.js',
      'dist/lib/events/index.js',
      'dist/lib/native/index.js',
      'dist/lib/pipeline/ingest.js',
      'dist/lib/mcp/manager.js',
    ]) {
      expect(loaded).not.toContain(unwanted);
    }
    // The MCP SDK loads only when a server is configured.
    expect(loaded.filter((l) => l.includes('@modelcontextprotocol'))).toEqual([]);
  });

  it('keeps draft and the ingest formats exported from their public modules', async () => {
    const events = await import('../../lib/events/index.js');
    const { draft } = await import('../../lib/events/draft.js');
    expect(events.draft).toBe(draft);
    const ingest = await import('../../lib/pipeline/ingest.js');
    const { INGEST_FORMATS } = await import('../../lib/decode/formats.js');
    expect(ingest.INGEST_FORMATS).toBe(INGEST_FORMATS);
  });
});
