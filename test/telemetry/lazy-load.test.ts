/**
 * Tracing off costs nothing at start-up: without an endpoint, `exec`, `batch`, `run` and `chat` load only the
 * small config reader of lib/telemetry, never the exporter, the span builder or the OpenTelemetry packages.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const HOOKS = `data:text/javascript,${encodeURIComponent(
  "export async function load(url, context, next) { if (url.startsWith('file:')) process._rawDebug('LOADED ' + url); return next(url, context); }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

describe('tracing off', () => {
  it('loads no telemetry module but the config reader, and no OpenTelemetry package, with the exec, batch, run and chat actions', () => {
    const script = `await import('./dist/cli/program.js'); await import('./dist/cli/exec-action.js'); await import('./dist/cli/batch-action.js'); await import('./dist/lib/batch/batch.js'); await import('./dist/cli/run-native-action.js'); await import('./dist/cli/chat-action.js'); await import('./dist/lib/chat/session.js');`;
    const result = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    const loaded = result.stderr
      .split('\n')
      .filter((l) => l.startsWith('LOADED '))
      .map((l) => path.relative(ROOT, new URL(l.slice('LOADED '.length)).pathname));
    expect(loaded).toContain('dist/cli/batch-action.js');
    expect(loaded).toContain('dist/cli/chat-action.js');
    expect(loaded.filter((f) => f.startsWith('dist/lib/telemetry/'))).toEqual(['dist/lib/telemetry/config.js']);
    expect(loaded.filter((f) => f.includes('node_modules/@opentelemetry/'))).toEqual([]);
  });
});
