import { describe, expect, it } from 'vitest';
import { normalizeOllamaHost, resolveProvider } from '../../lib/agent/provider-select.js';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { hasCode } from '../../lib/errors.js';

function error(fn: () => unknown): { code?: string; action?: string } {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; action?: string };
  }
  throw new Error('expected a throw');
}

describe('resolveProvider', () => {
  it('fails with MINICODE_E_NO_PROVIDER and an action when nothing is configured', () => {
    const e = error(() => resolveProvider({ env: {} }));
    expect(e.code).toBe('MINICODE_E_NO_PROVIDER');
    expect(e.action).toContain('ANTHROPIC_API_KEY');
  });

  it('picks up the conventional variables', () => {
    expect(resolveProvider({ env: { ANTHROPIC_API_KEY: 'k' } })).toEqual({
      format: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'k',
      keyVariable: 'ANTHROPIC_API_KEY',
    });
    expect(
      resolveProvider({
        env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'https://openrouter.ai/api/v1', OPENROUTER_API_KEY: 'or' },
        model: 'x/y',
      }),
    ).toMatchObject({
      format: 'openai-chat',
      apiKey: 'or',
    });
    expect(
      resolveProvider({ env: { GEMINI_API_KEY: 'g', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:5' } }),
    ).toMatchObject({ format: 'gemini', baseUrl: 'http://127.0.0.1:5' });
    expect(resolveProvider({ env: { OLLAMA_HOST: '0.0.0.0' } })).toMatchObject({
      format: 'ollama',
      baseUrl: 'http://127.0.0.1:11434',
      model: 'llama3.2',
    });
  });

  it('lets flags win over the environment and accepts the openai alias', () => {
    const r = resolveProvider({
      provider: 'openai',
      model: 'gpt-4o',
      env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' },
    });
    expect(r).toMatchObject({ format: 'openai-chat', model: 'gpt-4o', apiKey: 'o' });
  });

  it('needs no key for a self-hosted OpenAI-compatible server but needs --model', () => {
    expect(resolveProvider({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5', env: {} })).toEqual({
      format: 'openai-chat',
      model: 'qwen2.5',
      baseUrl: 'http://127.0.0.1:8000/v1',
    });
    expect(error(() => resolveProvider({ baseUrl: 'http://127.0.0.1:8000/v1', env: {} })).code).toBe(
      'MINICODE_E_UNKNOWN_MODEL',
    );
  });

  it('names the variable to set when a hosted API has no key', () => {
    const e = error(() => resolveProvider({ provider: 'anthropic', env: {} }));
    expect(e.code).toBe('MINICODE_E_MISSING_KEY');
    expect(e.action).toMatch(/^set ANTHROPIC_API_KEY in the environment /);
    expect(e.message).toContain('anthropic');
    expect(error(() => resolveProvider({ provider: 'gemini', env: {} })).action).toContain('GEMINI_API_KEY');
  });

  it('rejects a malformed model and a model the hosted API does not serve', () => {
    expect(
      error(() => resolveProvider({ provider: 'anthropic', model: 'gpt-4o', env: { ANTHROPIC_API_KEY: 'k' } })).code,
    ).toBe('MINICODE_E_UNKNOWN_MODEL');
    expect(
      error(() => resolveProvider({ provider: 'openai-chat', model: 'not a model', env: { OPENAI_API_KEY: 'k' } }))
        .code,
    ).toBe('MINICODE_E_UNKNOWN_MODEL');
  });

  it('rejects a base URL whose scheme is not http or https as a usage error, before any request', () => {
    for (const baseUrl of ['ftp://127.0.0.1/v1', 'file:///tmp/v1', 'ws://127.0.0.1:8000/v1']) {
      const e = error(() =>
        resolveProvider({ provider: 'openai-chat', model: 'gpt-4.1', baseUrl, env: { OPENAI_API_KEY: 'k' } }),
      ) as { code?: string; message?: string };
      expect(e.code, baseUrl).toBe('MINICODE_E_USAGE');
      expect(e.message).toContain('is not http: or https:');
    }
    expect(
      resolveProvider({
        provider: 'openai-chat',
        model: 'gpt-4.1',
        baseUrl: 'HTTPS://api.example.com/v1',
        env: { OPENAI_API_KEY: 'k' },
      }).baseUrl,
    ).toMatch(/^https:/i);
  });

  it('treats a variable set to the empty string (export OPENAI_BASE_URL=) as unset', () => {
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: '', MINICODE_MODEL: '', MINICODE_PROVIDER: ' ' };
    expect(resolveProvider({ env })).toMatchObject({
      format: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: 'https://api.anthropic.com',
    });
    expect(
      resolveProvider({ provider: 'openai-chat', env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: '' } }).baseUrl,
    ).toBe('https://api.openai.com/v1');
  });

  it('rejects an unknown provider name with the list of known ones', () => {
    const e = error(() => resolveProvider({ provider: 'mystery', env: {} }));
    expect(hasCode(e, 'MINICODE_E_NO_PROVIDER')).toBe(true);
    expect(e.action).toContain('openai-responses');
  });

  it('resolves replay without a key or endpoint', () => {
    expect(resolveProvider({ provider: 'replay', env: {} })).toEqual({
      format: 'replay',
      model: 'replay',
      baseUrl: '',
    });
  });

  it('reads the provider and model from config', () => {
    const r = resolveProvider({
      env: { OPENAI_API_KEY: 'k' },
      config: { provider: 'openai-responses', providers: { 'openai-responses': { model: 'gpt-5' } } },
    });
    expect(r).toMatchObject({ format: 'openai-responses', model: 'gpt-5' });
  });
});

describe('endpoint helpers', () => {
  it('normalise OLLAMA_HOST the way Ollama does', () => {
    expect(normalizeOllamaHost('localhost:1234')).toBe('http://localhost:1234');
    expect(normalizeOllamaHost('https://ollama.example')).toBe('https://ollama.example:11434');
  });

  it('place the OpenAI formats under /v1 of a server origin', () => {
    expect(baseUrlForOrigin('openai-chat', 'http://127.0.0.1:5/')).toBe('http://127.0.0.1:5/v1');
    expect(baseUrlForOrigin('anthropic', 'http://127.0.0.1:5')).toBe('http://127.0.0.1:5');
  });
});
