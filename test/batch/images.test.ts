/**
 * A batch line's `images`: files relative to the line's cwd, sent with its prompt as `exec -i`
 * sends them (checked here against the Chat Completions image shape a scripted provider on
 * loopback receives), stored once by digest; a file that is no image is the line's error record
 * without a request; `images` with a native `agent` is a line of the wrong shape.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { jpeg } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider } from '../helpers/scripted-provider.js';
import { makeWorkdir, recordIds } from './helpers.js';

type Part = { type: string; text?: string; image_url?: { url: string } };

describe('images on a batch line', () => {
  let provider: ScriptedProvider | undefined;
  afterAll(async () => {
    await provider?.close();
  });

  it.each([
    ['on the main thread', '0'],
    ['on a pool thread', '1'],
  ])(
    'sends the files relative to the line cwd as images, and makes a line with a non-image an error record with no request, %s',
    async (_where, threads) => {
      provider = await startScriptedProvider(() => ({ text: 'A photo.' }));
      const w = makeWorkdir(0);
      fs.mkdirSync(path.join(w.dir, 'work', 'shots'), { recursive: true });
      const photo = jpeg(64, 48);
      fs.writeFileSync(path.join(w.dir, 'work', 'shots', 'photo.png'), photo);
      fs.writeFileSync(path.join(w.dir, 'work', 'notes.png'), 'not an image\n');
      fs.writeFileSync(
        w.input,
        [
          { id: 'seen', prompt: 'Describe the photo', cwd: 'work', images: ['shots/photo.png'] },
          { id: 'bad', prompt: 'Describe the notes', cwd: 'work', images: ['notes.png'] },
          { id: 'native', prompt: 'Describe', agent: 'codex', images: ['shots/photo.png'] },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
      );
      const flags = [
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1',
        '--base-url',
        provider.settings.baseUrl,
        '--sandbox',
        'off',
        '--store',
        w.store,
        '--out',
        w.out,
        '--threads',
        threads,
      ];
      const r = await runCli(['batch', w.input, ...flags], {
        cwd: w.dir,
        env: { OPENAI_API_KEY: 'sk-test-batch-images-0123456789' },
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/prompts\.jsonl:3: .*images is for minicode's own agent.*MINICODE_E_BATCH_LINE_SHAPE/);
      expect(recordIds(w.out)).toMatchObject({ results: ['seen'], errors: ['bad'] });
      const error = JSON.parse(fs.readFileSync(path.join(w.out, 'errors.jsonl'), 'utf8').trim()) as {
        error: { code: string; message: string };
      };
      expect(error.error).toMatchObject({
        code: 'MINICODE_E_IMAGE',
        message: expect.stringContaining('notes.png: not a PNG, JPEG, GIF or WebP image'),
      });
      expect(provider.requests).toHaveLength(1);
      const user = provider.requests[0]!.body.messages.find((m) => m.role === 'user')!.content as Part[];
      expect(user).toEqual([
        { type: 'text', text: 'Describe the photo' },
        { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${photo.toString('base64')}`, detail: 'auto' } },
      ]);
      await provider.close();
      provider = undefined;
    },
  );
});
