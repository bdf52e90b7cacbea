/**
 * Image prompt content under ACP, with the official SDK client driving the real agent
 * (`minicode acp` as a subprocess) whose model is a scripted OpenAI-compatible provider on
 * loopback (hand-made SSE). The agent advertises `promptCapabilities.image` only for a model that
 * takes images; an image block reaches the model typed from its bytes (not from its declared
 * `mimeType`), a block that is no image is refused as invalid params with its code and no
 * request, and a session loaded in a fresh process shows a placeholder and sends the image again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { jpeg } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider } from '../helpers/scripted-provider.js';
import { chunkTexts, initializeFullClient, spawnAcp, updatesFor, type AcpChild } from './acp-child.js';

type Part = { type: string; text?: string; image_url?: { url: string } };

describe('image prompts under ACP', () => {
  let provider: ScriptedProvider;
  const opened: { acp: AcpChild; conn: ClientConnection }[] = [];
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-images-home-'));
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-images-')));
  afterAll(async () => {
    for (const { acp, conn } of opened) {
      conn.close();
      await acp.close();
    }
    await provider?.close();
  });

  const start = async (model: string) => {
    provider ??= await startScriptedProvider(() => ({ text: 'A photo of a grey square.' }));
    const acp = spawnAcp(
      ['--provider', 'openai-chat', '--model', model, '--base-url', provider.settings.baseUrl, '--sandbox', 'off'],
      {
        scripted: false,
        env: { OPENAI_API_KEY: 'sk-test-acp-images-0123456789', MINICODE_HOME: home },
      },
    );
    const conn = client({ name: 'images-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    opened.push({ acp, conn });
    const init = await initializeFullClient(conn, 'images-test');
    return { acp, conn, init };
  };

  it('advertises image prompts for a vision model only', async () => {
    const withVision = await start('gpt-4.1');
    expect(withVision.init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const textOnly = await start('gpt-3.5-turbo');
    expect(textOnly.init.agentCapabilities?.promptCapabilities?.image).toBe(false);
  });

  it('sends an image block typed from its bytes, refuses one that is no image, and a loaded session sends it again', async () => {
    const { acp, conn } = await start('gpt-4.1');
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    const photo = jpeg(64, 48);
    const before = provider.requests.length;
    const answer = await conn.agent.request('session/prompt', {
      sessionId,
      // Declared PNG, the bytes are a JPEG: the bytes win.
      prompt: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', data: photo.toString('base64'), mimeType: 'image/png', uri: 'file:///home/me/photo.png' },
      ],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(provider.requests).toHaveLength(before + 1);
    const user = provider.requests[before]!.body.messages.find((m) => m.role === 'user')!.content as Part[];
    expect(user).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${photo.toString('base64')}`, detail: 'auto' } },
    ]);
    // Nothing of the image's bytes went back to the client.
    expect(acp.wire.filter((l) => l.from === 'agent').some((l) => l.text.includes(photo.toString('base64')))).toBe(
      false,
    );

    const refused = await conn.agent
      .request('session/prompt', {
        sessionId,
        prompt: [
          { type: 'text', text: 'and this?' },
          { type: 'image', data: Buffer.from('plain text, not an image').toString('base64'), mimeType: 'image/png' },
        ],
      })
      .then(
        () => undefined,
        (error: { code: number; data?: { code?: string } }) => error,
      );
    expect(refused).toMatchObject({ code: -32602, data: { code: 'MINICODE_E_IMAGE' } });
    expect(provider.requests).toHaveLength(before + 1);
    expect(acp.violations).toEqual([]);

    // A fresh process loads the session from the store: the replay shows a placeholder, the next prompt carries the image.
    const fresh = await start('gpt-4.1');
    const loadFrom = fresh.acp.wire.length;
    await fresh.conn.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] });
    const replayed = chunkTexts(updatesFor(fresh.acp.wire, sessionId, loadFrom), 'user_message_chunk');
    expect(replayed[0]).toBe('What is in this picture?\n[image photo.png 64x48 image/jpeg]');
    await fresh.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Describe it again' }],
    });
    expect(JSON.stringify(provider.requests.at(-1)!.body.messages)).toContain(photo.toString('base64'));
    expect(fresh.acp.violations).toEqual([]);
  });
});
