/**
 * Images in the control plane: each provider's published token rule (the figures its own
 * documentation gives as examples), the context estimate counting an image as its provider
 * counts it, and compaction replacing an older message's images by their placeholders (said so
 * in the text and in the removal marker), never dropping one unsaid. The end-to-end case runs a
 * chat session (real LMDB store) against a scripted OpenAI-compatible provider on loopback.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toTranscript } from '../../lib/agent/context.js';
import { imagePartOf } from '../../lib/agent/loop.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession } from '../../lib/chat/session.js';
import { estimateMessagesTokens } from '../../lib/control/estimate.js';
import { foldTranscript, IMAGE_FOLDED } from '../../lib/control/fold.js';
import { imageFromBytes } from '../../lib/images/load.js';
import { imageTokens } from '../../lib/images/tokens.js';
import { openStore } from '../../lib/store/index.js';
import { png } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider } from '../helpers/scripted-provider.js';

describe('image tokens by each provider rule', () => {
  it('OpenAI: 85 plus 170 per 512-pixel tile after fitting in 2048 and scaling the short side to 768', () => {
    expect(imageTokens('openai-chat', 1024, 1024)).toBe(765);
    expect(imageTokens('openai-responses', 2048, 4096)).toBe(1105);
    expect(imageTokens('openai-chat', 4, 3)).toBe(255);
  });

  it('OpenAI: by the detail sent, low a fixed 85, high the tiles, auto counted as high (its bound)', () => {
    expect(imageTokens('openai-chat', 1024, 1024, 'low')).toBe(85);
    expect(imageTokens('openai-responses', 4000, 3000, 'low')).toBe(85);
    expect(imageTokens('openai-chat', 1024, 1024, 'high')).toBe(765);
    expect(imageTokens('openai-chat', 1024, 1024, 'auto')).toBe(765);
    // Other formats have no detail: the argument changes nothing there.
    expect(imageTokens('anthropic', 200, 200, 'low')).toBe(54);
    const look = [
      { role: 'user' as const, text: 'look', images: [imagePartOf(imageFromBytes(png(1024, 1024), 'big.png'))] },
    ];
    expect(toTranscript(look, 'openai-chat', 'low')[0]!.images![0]!.tokens).toBe(85);
    expect(toTranscript(look, 'openai-chat')[0]!.images![0]!.tokens).toBe(765);
  });

  it('Anthropic: width times height over 750 after its downscaling, at most 1,600', () => {
    expect(imageTokens('anthropic', 200, 200)).toBe(54);
    expect(imageTokens('anthropic', 1000, 1000)).toBe(1334);
    expect(imageTokens('anthropic', 1092, 1092)).toBe(1590);
    expect(imageTokens('anthropic', 4000, 3000)).toBe(1600);
  });

  it('Gemini: 258 for a small image, else 258 per 768-pixel tile; Ollama a fixed 576', () => {
    expect(imageTokens('gemini', 384, 384)).toBe(258);
    expect(imageTokens('gemini', 1000, 1000)).toBe(1032);
    expect(imageTokens('ollama', 1000, 1000)).toBe(576);
  });
});

describe('images in the context estimate and in compaction', () => {
  const part = imagePartOf(imageFromBytes(png(1024, 1024), 'big.png'));

  it('counts an image as the provider counts it, not as its placeholder', () => {
    const plain = estimateMessagesTokens(toTranscript([{ role: 'user', text: 'look' }], 'anthropic'));
    for (const format of ['openai-chat', 'anthropic', 'gemini', 'ollama'] as const) {
      const withImage = estimateMessagesTokens(toTranscript([{ role: 'user', text: 'look', images: [part] }], format));
      expect(withImage - plain).toBe(imageTokens(format, 1024, 1024));
    }
  });

  it('folds an older message image to its placeholder, keeps the running task images, and names removed images in the marker', () => {
    const conversation = [
      { role: 'user' as const, text: 'first, with a picture', images: [part] },
      { role: 'assistant' as const, text: 'seen' },
      { role: 'user' as const, text: 'second' },
      { role: 'assistant' as const, text: 'ok' },
      { role: 'user' as const, text: 'now this one', images: [part] },
    ];
    const folded = foldTranscript(toTranscript(conversation, 'openai-chat'), { keepRecentUnits: 1 });
    expect(folded.messages[0]).toEqual({
      role: 'user',
      text: `first, with a picture\n[image big.png 1024x1024 image/png] ${IMAGE_FOLDED}`,
    });
    expect(folded.messages[4]).toMatchObject({ role: 'user', pinned: true, images: [{ tokens: 765 }] });
    expect(folded.afterTokens).toBeLessThan(folded.beforeTokens - 700);
    expect(folded.removedImages).toBe(1);
    const removed = foldTranscript(toTranscript(conversation, 'openai-chat'), { keepRecentUnits: 1, targetTokens: 0 });
    expect(removed.messages[0]).toEqual({
      role: 'user',
      text: '[minicode: 4 earlier messages, with 1 image were removed by compaction]',
    });
  });

  it('pins the task, not the message that brings the images a tool read', () => {
    const t = toTranscript(
      [
        { role: 'user', text: 'look at logo.png' },
        { role: 'assistant', toolCalls: [{ id: 'c1', name: 'read_image', argumentsText: '{"path":"logo.png"}' }] },
        {
          role: 'tool',
          toolCallId: 'c1',
          name: 'read_image',
          content: '[image big.png 1024x1024 image/png] (the image follows)',
        },
        { role: 'user', text: 'The image read: [image big.png 1024x1024 image/png]', images: [part], fromTools: true },
      ],
      'anthropic',
    );
    expect(t[0]).toMatchObject({ role: 'user', pinned: true });
    expect(t[3]).not.toHaveProperty('pinned');
  });

  describe('in a chat session', () => {
    let provider: ScriptedProvider | undefined;
    afterAll(async () => {
      await provider?.close();
    });

    it('estimates the image in the footer figure, and after /compact the next request carries its placeholder instead of its bytes', async () => {
      provider = await startScriptedProvider(() => ({ text: 'Noted.' }));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-image-compaction-'));
      const store = openStore({ dir: path.join(dir, 'store') });
      try {
        const session = createChatSession({
          provider: provider.settings,
          limits: runLimits(),
          environment: toolEnvironment(dir, { policy: { mode: 'ask' }, env: {} }),
          store,
        });
        const shot = imageFromBytes(png(1024, 1024), 'shot.png');
        await session.turn('what is in this picture?', { images: [shot] });
        expect(session.observed().contextTokens).toBeGreaterThan(765);
        await session.turn('second question', {});
        await session.turn('third question', {});
        const base64 = Buffer.from(shot.bytes).toString('base64');
        expect(JSON.stringify(provider.requests.at(-1)!.body.messages)).toContain(base64);
        const fold = await session.compact();
        expect(fold.changed).toBe(true);
        // The stored event says how many images the model no longer sees.
        const compacted = store.readSession(session.sessionId!).filter((e) => e.type === 'context.compacted');
        expect(compacted.map((e) => e.payload)).toMatchObject([{ reason: 'manual', removedImages: 1 }]);
        await session.turn('and now?', {});
        const last = JSON.stringify(provider.requests.at(-1)!.body.messages);
        expect(last).not.toContain(base64);
        expect(last).toContain(`[image shot.png 1024x1024 image/png] ${IMAGE_FOLDED}`);
        await session.close();
      } finally {
        await store.close();
      }
    });
  });
});
