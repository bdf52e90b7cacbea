/**
 * Images that MCP tools return, shown to the model as images: the reference server-everything
 * (from npm) started from the user config, its `get-tiny-image` tool called by a scripted
 * OpenAI-compatible provider on loopback (hand-made SSE), `minicode exec` as a subprocess. The
 * request after the call carries the tool result's text with a placeholder, then the image in
 * the Chat Completions shape; the events never carry its base64. A model without vision is told
 * the image could not be shown instead. Unit cases cover a part that is no image and one past the limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resultContent } from '../../lib/mcp/output.js';
import { execJson, ofType, scratchProject } from '../exec/helpers.js';
import { png } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { EVERYTHING, tempDir } from './helpers.js';

/** The tiny PNG server-everything returns, read from the installed package. */
function tinyImage(): string {
  const source = fs.readFileSync(path.join(path.dirname(EVERYTHING), 'tools', 'get-tiny-image.js'), 'utf8');
  return /MCP_TINY_IMAGE = "([^"]+)"/.exec(source)![1]!;
}

type Part = { type: string; text?: string; image_url?: { url: string } };

describe('images returned by MCP tools', () => {
  const providers: ScriptedProvider[] = [];
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
  });

  const run = async (model: string) => {
    const provider = await startScriptedProvider((request: SeenRequest) =>
      request.body.messages.some((m) => m.role === 'tool')
        ? { text: 'It is the MCP logo.' }
        : { text: '', toolCalls: [{ id: 'call_tiny', name: 'mcp__everything__get-tiny-image', argumentsText: '{}' }] },
    );
    providers.push(provider);
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        approval: { mode: 'auto', allowTools: ['mcp__everything__*'] },
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], startupTimeoutMs: 60_000 },
        },
      }),
    );
    const result = await execJson(
      ['--provider', 'openai-chat', '--model', model, '--base-url', provider.settings.baseUrl, '--sandbox', 'off'],
      {
        cwd: scratchProject(),
        home,
        env: { OPENAI_API_KEY: 'sk-test-mcp-images-0123456789' },
        prompt: 'Show me the tiny image',
      },
    );
    return { provider, result };
  };

  it("shows server-everything's tiny image to the model after the tool result, and keeps its base64 out of the events", async () => {
    const tiny = tinyImage();
    const { provider, result } = await run('gpt-4.1');
    expect(result.code, result.stderr).toBe(0);
    expect(provider.requests).toHaveLength(2);
    const messages = provider.requests[1]!.body.messages;
    const at = messages.findIndex((m) => m.role === 'tool');
    expect(messages[at]!.content).toBe(
      "Here's the image you requested:\n[image get-tiny-image-1.png 20x20 image/png] (the image follows)\nThe image above is the MCP logo.",
    );
    expect(messages[at + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The image read: [image get-tiny-image-1.png 20x20 image/png]' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${tiny}`, detail: 'auto' } },
      ] satisfies Part[],
    });
    expect(ofType(result.records, 'tool.completed')[0]!.payload.summary).toBe(
      'everything: get-tiny-image returned 129 chars and 1 image',
    );
    expect(result.stdout).not.toContain(tiny.slice(0, 200));
    expect(ofType(result.records, 'tool.completed')[0]!.payload.images).toEqual([
      expect.objectContaining({ name: 'get-tiny-image-1.png', width: 20, height: 20, mediaType: 'image/png' }),
    ]);
  });

  it('tells a model without vision that the image could not be shown', async () => {
    const { provider, result } = await run('gpt-3.5-turbo');
    expect(result.code, result.stderr).toBe(0);
    const messages = provider.requests[1]!.body.messages;
    const at = messages.findIndex((m) => m.role === 'tool');
    expect(messages[at + 1]).toEqual({
      role: 'user',
      content:
        'Model gpt-3.5-turbo takes no image input, so [image get-tiny-image-1.png 20x20 image/png] could not be shown to you.',
    });
    // Not shown, not kept: a rebuilt session does not send it either.
    expect(ofType(result.records, 'tool.completed')[0]!.payload.images).toBeUndefined();
  });

  it('keeps a part that is no image, or one past the byte limit, as a placeholder saying why, typed by its bytes otherwise', () => {
    const real = png(3, 2);
    const out = resultContent(
      {
        content: [
          { type: 'image', data: Buffer.from('plain text').toString('base64'), mimeType: 'image/png' },
          { type: 'image', data: 'A'.repeat(8 * 1024 * 1024), mimeType: 'image/png' },
          { type: 'image', data: real.toString('base64'), mimeType: 'image/jpeg' },
        ],
      },
      { imageName: 'shot' },
    );
    expect(out.text.split('\n')).toEqual([
      '[image image/png, 10 bytes, not shown: not a PNG, JPEG, GIF or WebP image (its bytes say so, whatever its name)]',
      '[image image/png, 6291456 bytes, not shown: over the 5242880-byte image limit]',
      '[image shot-1.png 3x2 image/png] (the image follows)',
    ]);
    expect(out.images.map((i) => [i.name, i.mediaType, Buffer.from(i.bytes).equals(real)])).toEqual([
      ['shot-1.png', 'image/png', true],
    ]);
  });
});
