import { PROVIDER_FORMATS, type ProviderFormat } from '../decode/formats.js';
import { baseUrlForOrigin } from '../decode/formats.js';
import { MinicodeError } from '../errors.js';
import { loadCassette } from './cassette.js';
import { startReplayServer, type ReplayServer, type ReplayServerOptions } from './server.js';

/** A started replay provider: the format and endpoint to build requests against. */
export interface ReplayProvider {
  format: ProviderFormat;
  model: string;
  /** Base URL for the format's request builder, on the loopback server. */
  baseUrl: string;
  /** A placeholder key: the replay server ignores it, and nothing real is ever sent. */
  apiKey: string;
  server: ReplayServer;
  close(): Promise<void>;
}

/**
 * `--provider replay --cassette DIR`: load the cassette, start the loopback server and return
 * the format (from `cassette.json`) and the base URL to use, so the run goes through the same
 * HTTP and decoding path as a live provider, offline.
 */
export async function openReplayProvider(
  dir: string,
  options: ReplayServerOptions & { model?: string } = {},
): Promise<ReplayProvider> {
  const cassette = loadCassette(dir);
  const format = cassette.manifest.format;
  if (!(PROVIDER_FORMATS as readonly string[]).includes(format)) {
    throw new MinicodeError('MINICODE_E_INPUT_UNREADABLE', `cassette ${dir}: unknown format "${format}"`, {
      action: `set "format" in cassette.json to one of ${PROVIDER_FORMATS.join(', ')}`,
    });
  }
  // A hand-made cassette's chunk delays are part of its script (e.g. a slow stream to abort);
  // a recorded one replays as fast as possible unless asked.
  const server = await startReplayServer(cassette.exchanges, {
    ...options,
    honorTiming: options.honorTiming ?? cassette.manifest.origin === 'hand-made',
  });
  return {
    format: format as ProviderFormat,
    model: options.model ?? cassette.manifest.model ?? 'replay',
    baseUrl: baseUrlForOrigin(format as ProviderFormat, server.origin),
    apiKey: 'replay',
    server,
    close: () => server.close(),
  };
}
