/**
 * A batch against the scripted loopback provider (test/helpers/scripted-provider.ts): each line's
 * prompt is `line:<id>`, so the answer function knows which line (and which of its requests) it
 * answers. The real CLI runs it, with a clean environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import {
  startScriptedProvider,
  type Answer,
  type ScriptedProvider,
  type SeenRequest,
} from '../helpers/scripted-provider.js';
import { cleanEnv } from '../exec/helpers.js';

const providers: ScriptedProvider[] = [];
/** Close every provider {@link scriptedBatch} started (a file's `afterAll`). */
export async function closeScriptedBatches(): Promise<void> {
  await Promise.all(providers.splice(0).map((p) => p.close()));
}

/** The line a request belongs to: its prompt is `line:<id>`. */
export function lineOf(body: unknown): string {
  return /line:(\w+)/.exec(JSON.stringify(body))?.[1] ?? '?';
}

/** A batch of the given ids (`prompt: line:<id>`) in a fresh folder, against a scripted provider. */
export async function scriptedBatch(
  ids: (string | ({ id: string } & Record<string, unknown>))[],
  answer: (id: string, nth: number, request: SeenRequest) => Answer,
  extra: string[] = [],
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-batch-scripted-'));
  const input = path.join(dir, 'prompts.jsonl');
  const lines = ids.map((x) => (typeof x === 'string' ? { id: x } : x));
  fs.writeFileSync(input, lines.map((l) => JSON.stringify({ prompt: `line:${l.id}`, ...l })).join('\n') + '\n');
  const seen = new Map<string, number>();
  const provider = await startScriptedProvider((request) => {
    const id = lineOf(request.body.messages);
    const nth = (seen.get(id) ?? 0) + 1;
    seen.set(id, nth);
    return answer(id, nth, request);
  });
  providers.push(provider);
  const out = path.join(dir, 'out');
  // On the main thread unless the test names its threads.
  const threads = extra.includes('--threads') ? [] : ['--threads', '0'];
  const args = [
    'batch',
    input,
    '--provider',
    'openai-chat',
    '--base-url',
    provider.settings.baseUrl,
    '--model',
    'gpt-4.1',
    '--sandbox',
    'off',
    '--store',
    path.join(dir, 'store'),
    '--out',
    out,
    ...threads,
    ...extra,
  ];
  // The provider's own retries (up to 3 after the first request) wait nothing here; the batch's wait 10 ms, then 20 ms.
  const env = cleanEnv(path.join(dir, 'home'), {
    OPENAI_API_KEY: 'sk-test-retries-0123456789',
    MINICODE_RETRY_BACKOFF_MS: '0',
  });
  const result = await runCli([...args, '--retry-backoff', '10'], { cwd: dir, env, timeoutMs: 90_000 });
  return { result, out, seen, dir };
}
