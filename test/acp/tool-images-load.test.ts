/**
 * Images that tools return, kept for a session continued in another process: the official ACP
 * SDK client drives `minicode acp` (a subprocess) whose model is a scripted OpenAI-compatible
 * provider on loopback (hand-made SSE). In one step the model calls `read_image` on a workspace
 * PNG and server-everything's `get-tiny-image` (an MCP server the client passes, from npm); the
 * stored `tool.completed` events refer to each image by digest, never by base64, and the bytes are
 * in the store's content store (real LMDB). After the workspace file is deleted, a fresh process
 * loads the session and its next request carries both images again, after the step's tool results,
 * as the first process sent them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { runCli } from '../helpers/cli.js';
import { png } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { EVERYTHING } from '../mcp/helpers.js';
import { initializeFullClient, spawnAcp, type AcpChild } from './acp-child.js';

type Part = { type: string; text?: string; image_url?: { url: string } };
type Message = SeenRequest['body']['messages'][number] & { tool_call_id?: string };

/** The tiny PNG server-everything returns, read from the installed package. */
function tinyImage(): string {
  const source = fs.readFileSync(path.join(path.dirname(EVERYTHING), 'tools', 'get-tiny-image.js'), 'utf8');
  return /MCP_TINY_IMAGE = "([^"]+)"/.exec(source)![1]!;
}

/** The messages from the first tool result on: the step's results and what follows them. */
const afterTools = (messages: Message[]): Message[] => messages.slice(messages.findIndex((m) => m.role === 'tool'));

describe('tool images in a session loaded by a fresh ACP process', () => {
  let provider: ScriptedProvider | undefined;
  const opened: { acp: AcpChild; conn: ClientConnection }[] = [];
  afterAll(async () => {
    for (const { acp, conn } of opened) {
      conn.close();
      await acp.close();
    }
    await provider?.close();
  });

  it('sends the images read_image and an MCP tool returned again after session/load, from the content store', async () => {
    let answers = 0;
    provider = await startScriptedProvider((request) => {
      const last = request.body.messages.at(-1)!;
      if (last.role === 'user' && typeof last.content === 'string' && last.content.startsWith('Look at'))
        return {
          text: '',
          toolCalls: [
            { id: 'call_read', name: 'read_image', argumentsText: '{"path":"shot.png"}' },
            { id: 'call_tiny', name: 'mcp__everything__get-tiny-image', argumentsText: '{}' },
          ],
        };
      return { text: `Answer ${++answers}: two pictures.` };
    });
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-tool-images-')));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    fs.mkdirSync(home);
    fs.mkdirSync(project);
    const shot = png(6, 5);
    fs.writeFileSync(path.join(project, 'shot.png'), shot);
    const tiny = tinyImage();
    const mcpServers = [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] }];

    const start = async () => {
      const acp = spawnAcp(
        [
          '--provider',
          'openai-chat',
          '--model',
          'gpt-4.1',
          '--base-url',
          provider!.settings.baseUrl,
          '--sandbox',
          'off',
        ],
        { scripted: false, env: { OPENAI_API_KEY: 'sk-test-acp-tool-images-0123456789', MINICODE_HOME: home } },
      );
      const conn = client({ name: 'tool-images-test' })
        .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
        .onNotification('session/update', () => {})
        .connect(acp.stream);
      opened.push({ acp, conn });
      await initializeFullClient(conn, 'tool-images-test');
      return { acp, conn };
    };

    const first = await start();
    const { sessionId } = await first.conn.agent.request('session/new', { cwd: project, mcpServers });
    const answer = await first.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Look at shot.png and the tiny image' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(provider.requests).toHaveLength(2);
    const live = afterTools(provider.requests[1]!.body.messages as Message[]);
    expect(live.map((m) => m.role)).toEqual(['tool', 'tool', 'user']);
    const shown = live[2]!.content as Part[];
    expect(shown).toEqual([
      {
        type: 'text',
        text: 'The images read: [image shot.png 6x5 image/png] [image get-tiny-image-1.png 20x20 image/png]',
      },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${shot.toString('base64')}`, detail: 'auto' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${tiny}`, detail: 'auto' } },
    ]);
    expect(first.acp.violations).toEqual([]);
    first.conn.close();
    await first.acp.close();

    // The stored events refer to the images; their bytes are nowhere in them.
    const replayed = await runCli(['replay', sessionId, '--json'], { env: { MINICODE_HOME: home } });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).not.toContain(shot.toString('base64'));
    expect(replayed.stdout).not.toContain(tiny);
    const completed = replayed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: { name?: string; images?: Record<string, unknown>[] } })
      .filter((e) => e.type === 'tool.completed');
    expect(completed.map((e) => [e.payload.name, e.payload.images?.map((i) => i.name)])).toEqual(
      expect.arrayContaining([
        ['read_image', ['shot.png']],
        ['mcp__everything__get-tiny-image', ['get-tiny-image-1.png']],
      ]),
    );
    const readRef = completed.find((e) => e.payload.name === 'read_image')!.payload.images![0]!;
    expect(readRef).toMatchObject({
      mediaType: 'image/png',
      width: 6,
      height: 5,
      content: { ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: shot.length, mediaType: 'image/png' },
    });

    // Gone from the workspace: what the loaded session sends comes from the store.
    fs.rmSync(path.join(project, 'shot.png'));
    const fresh = await start();
    await fresh.conn.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] });
    await fresh.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Which one is larger?' }],
    });
    expect(provider.requests).toHaveLength(3);
    const loaded = afterTools(provider.requests[2]!.body.messages as Message[]);
    expect(loaded.map((m) => m.role)).toEqual(['tool', 'tool', 'user', 'assistant', 'user']);
    expect(loaded[2]!.content).toEqual(shown);
    expect(fresh.acp.violations).toEqual([]);
  }, 120_000);
});
