/**
 * Images: typed from their bytes, held to their limits, encoded by each provider format the way
 * its documentation shows, stored once by digest with the events carrying a reference, and sent
 * end to end by `exec -i` and the `read_image` tool (the real CLI against a scripted
 * OpenAI-compatible provider on loopback). The images are made here, byte by byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRequest } from '../../lib/agent/requests/index.js';
import type { Conversation } from '../../lib/agent/conversation.js';
import { sniffImage } from '../../lib/images/sniff.js';
import { imageFromBytes } from '../../lib/images/load.js';
import { acceptsImages } from '../../lib/images/vision.js';
import { MinicodeError } from '../../lib/errors.js';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { execJson, ofType, scratchProject, cleanEnv, tempDir } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';
import { gif, jpeg, png, webpLossless } from '../helpers/images.js';

describe('images are typed from their bytes and held to their limits', () => {
  it('reads the type and dimensions of PNG, JPEG, GIF and WebP', () => {
    expect(sniffImage(png(3, 2))).toEqual({ mediaType: 'image/png', width: 3, height: 2 });
    expect(sniffImage(jpeg(640, 480))).toEqual({ mediaType: 'image/jpeg', width: 640, height: 480 });
    expect(sniffImage(gif(10, 20))).toEqual({ mediaType: 'image/gif', width: 10, height: 20 });
    expect(sniffImage(webpLossless(300, 200))).toEqual({ mediaType: 'image/webp', width: 300, height: 200 });
    expect(sniffImage(Buffer.from('not an image at all'))).toBeUndefined();
    expect(sniffImage(png(3, 2).subarray(0, 20))).toBeUndefined();
  });

  it('types a mislabelled file by its bytes, and refuses text named .png', () => {
    expect(imageFromBytes(jpeg(8, 8), 'shot.png').mediaType).toBe('image/jpeg');
    const refused = (() => {
      try {
        imageFromBytes(Buffer.from('hello'), 'notes.png');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(MinicodeError);
    expect((refused as MinicodeError).code).toBe('MINICODE_E_IMAGE');
  });

  it('refuses an image over the byte limit or the pixel limit, saying which', () => {
    expect(() => imageFromBytes(png(2, 2), 'a.png', { maxBytes: 10, maxSide: 8000 })).toThrow(
      /over the 10-byte image limit/,
    );
    expect(() => imageFromBytes(jpeg(9000, 100), 'wide.jpg')).toThrow(/9000x100 pixels is over the 8000-pixel limit/);
  });

  it('knows text-only model families and lets others through', () => {
    expect(acceptsImages('gpt-3.5-turbo')).toBe(false);
    expect(acceptsImages('deepseek-coder')).toBe(false);
    expect(acceptsImages('gpt-4.1')).toBe(true);
    expect(acceptsImages('claude-sonnet-4-5')).toBe(true);
  });
});

describe('each provider format encodes an image its documented way', () => {
  const image = imageFromBytes(png(2, 2), 'dot.png');
  const data = Buffer.from(image.bytes).toString('base64');
  const conversation: Conversation = {
    system: 'sys',
    messages: [
      {
        role: 'user',
        text: 'What is in the image?',
        images: [{ mediaType: 'image/png', data, name: 'dot.png', width: 2, height: 2 }],
      },
    ],
    tools: [],
  };
  const bodyOf = (format: Parameters<typeof buildRequest>[0]): Record<string, any> =>
    JSON.parse(
      String(
        buildRequest(format, conversation, {
          model: 'm',
          baseUrl: 'http://127.0.0.1:1',
          apiKey: 'k',
          maxTokens: undefined,
          tuning: undefined,
        }).body,
      ),
    );

  it('Anthropic: an image block with a base64 source before the text', () => {
    expect(bodyOf('anthropic').messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      // The prompt-cache anchor sits on the last block of the user message.
      { type: 'text', text: 'What is in the image?', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('OpenAI Chat Completions: an image_url part with a data URL', () => {
    const user = bodyOf('openai-chat').messages.find((m: { role: string }) => m.role === 'user');
    expect(user.content).toEqual([
      { type: 'text', text: 'What is in the image?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}`, detail: 'auto' } },
    ]);
  });

  it('OpenAI Responses: an input_image item with a data URL', () => {
    expect(bodyOf('openai-responses').input[0]).toEqual({
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is in the image?' },
        { type: 'input_image', image_url: `data:image/png;base64,${data}`, detail: 'auto' },
      ],
    });
  });

  it('Gemini: an inline_data part with its mime type', () => {
    expect(bodyOf('gemini').contents[0]).toEqual({
      role: 'user',
      parts: [{ inline_data: { mime_type: 'image/png', data } }, { text: 'What is in the image?' }],
    });
  });

  it('Ollama: the base64 bytes in the message images', () => {
    const user = bodyOf('ollama').messages.find((m: { role: string }) => m.role === 'user');
    expect(user).toEqual({ role: 'user', content: 'What is in the image?', images: [data] });
  });
});

describe('images end to end through exec', () => {
  const providers: ScriptedProvider[] = [];
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
  });
  const serve = async (
    answer: (request: SeenRequest) => {
      text: string;
      toolCalls?: { id: string; name: string; argumentsText: string }[];
    },
  ) => {
    const provider = await startScriptedProvider(answer);
    providers.push(provider);
    return {
      provider,
      args: ['--provider', 'openai-chat', '--base-url', provider.settings.baseUrl, '--sandbox', 'off'],
      env: { OPENAI_API_KEY: 'sk-test-images-0123456789' },
    };
  };

  it('exec -i sends the image as a data URL, stores it once by digest, and the event carries only a reference', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'A grey square.' }));
    const cwd = scratchProject();
    const file = path.join(cwd, 'shot.png');
    const bytes = png(4, 3);
    fs.writeFileSync(file, bytes);
    const home = tempDir('minicode-home-');
    const run = await execJson([...args, '--model', 'gpt-4.1', '-i', file], {
      cwd,
      env,
      home,
      prompt: 'Describe the image',
    });
    expect(run.code, run.stderr).toBe(0);
    const user = provider.requests[0]!.body.messages.find((m) => m.role === 'user')!;
    expect(user.content).toEqual([
      { type: 'text', text: 'Describe the image' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${bytes.toString('base64')}`, detail: 'auto' } },
    ]);
    const received = ofType(run.records, 'user.message.received')[0]!;
    expect(received.payload.images).toEqual([
      {
        name: 'shot.png',
        mediaType: 'image/png',
        width: 4,
        height: 3,
        content: { ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: bytes.length, mediaType: 'image/png' },
      },
    ]);
    expect(JSON.stringify(run.records)).not.toContain(bytes.toString('base64'));
    const replay = await runCli(['replay', run.records[0]!.sessionId as string, '--linear'], { env: cleanEnv(home) });
    expect(replay.stdout).toContain('[image shot.png 4x3 image/png]');
  });

  it('refuses an oversized image and a text file named .png before any request (exit 2, one summary line)', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'never' }));
    const cwd = scratchProject();
    const big = path.join(cwd, 'big.jpg');
    fs.writeFileSync(big, jpeg(9000, 9000));
    const fake = path.join(cwd, 'fake.png');
    fs.writeFileSync(fake, 'just text\n');
    for (const file of [big, fake]) {
      const run = await execJson([...args, '--model', 'gpt-4.1', '-i', file], {
        cwd,
        env,
        prompt: 'Describe the image',
      });
      expect(run.code).toBe(2);
      expect(run.records).toHaveLength(1);
      expect(run.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_IMAGE' } });
    }
    expect(provider.requests).toHaveLength(0);
  });

  it('refuses images for a model known to take none, before the request', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'never' }));
    const cwd = scratchProject();
    fs.writeFileSync(path.join(cwd, 'a.png'), png(2, 2));
    const run = await execJson([...args, '--model', 'gpt-3.5-turbo', '-i', path.join(cwd, 'a.png')], {
      cwd,
      env,
      prompt: 'Describe the image',
    });
    expect(run.code).toBe(2);
    expect(run.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_NO_VISION' } });
    expect(provider.requests).toHaveLength(0);
  });

  it('sends the detail config imageDetail names with every image, in Chat and Responses alike', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'A grey square.' }));
    const cwd = scratchProject();
    const file = path.join(cwd, 'shot.png');
    const bytes = png(4, 3);
    fs.writeFileSync(file, bytes);
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ imageDetail: 'low' }));
    const run = await execJson([...args, '--model', 'gpt-4.1', '-i', file], { cwd, env, home, prompt: 'Describe it' });
    expect(run.code, run.stderr).toBe(0);
    expect(provider.requests[0]!.body.messages.find((m) => m.role === 'user')!.content).toEqual([
      { type: 'text', text: 'Describe it' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${bytes.toString('base64')}`, detail: 'low' } },
    ]);
    const conversation: Conversation = {
      messages: [
        { role: 'user', text: 'x', images: [{ mediaType: 'image/png', data: 'AA==', name: 'a', width: 1, height: 1 }] },
      ],
      tools: [],
    };
    const options = { model: 'gpt-4.1', baseUrl: 'http://127.0.0.1:9', tuning: { imageDetail: 'high' as const } };
    const responses = JSON.parse(buildRequest('openai-responses', conversation, options).body);
    expect(responses.input[0].content[1]).toMatchObject({ type: 'input_image', detail: 'high' });
    const chat = JSON.parse(buildRequest('openai-chat', conversation, options).body);
    expect(chat.messages.at(-1).content[1].image_url.detail).toBe('high');
    // A value OpenAI does not take is a config error before any request.
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ imageDetail: 'medium' }));
    const bad = await execJson([...args, '--model', 'gpt-4.1'], { cwd, env, home, prompt: 'Describe it' });
    expect(bad.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_CONFIG_INVALID' } });
    expect(provider.requests).toHaveLength(1);
  });

  it('read_image shows the model a workspace image after the tool result, typed from its bytes', async () => {
    const { provider, args, env } = await serve((request) =>
      request.body.messages.some((m) => m.role === 'tool')
        ? { text: 'It is a JPEG.' }
        : { text: '', toolCalls: [{ id: 'call_img', name: 'read_image', argumentsText: '{"path":"logo.png"}' }] },
    );
    const cwd = scratchProject();
    const bytes = jpeg(32, 16);
    fs.writeFileSync(path.join(cwd, 'logo.png'), bytes);
    const run = await execJson([...args, '--model', 'gpt-4.1'], { cwd, env, prompt: 'Look at logo.png' });
    expect(run.code, run.stderr).toBe(0);
    const second = provider.requests[1]!.body.messages;
    const toolAt = second.findIndex((m) => m.role === 'tool');
    expect(second[toolAt]!.content).toBe('[image logo.png 32x16 image/jpeg] (the image follows)');
    expect(second[toolAt + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The image read: [image logo.png 32x16 image/jpeg]' },
        { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${bytes.toString('base64')}`, detail: 'auto' } },
      ],
    });
  });
});
