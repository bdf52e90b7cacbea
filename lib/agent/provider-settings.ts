/**
 * How a run reaches its model: the endpoint, its request tuning, and what carries and retries
 * the requests. Resolved once per run set-up (`prepareRun`, or {@link providerSettings} for a
 * caller that knows its endpoint) and passed whole to every layer below it.
 */
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../control/retry.js';
import type { ProviderFormat } from './conversation.js';
import type { HttpClient } from './http-client.js';
import type { RequestTuning } from './requests/types.js';

/** The provider of a run; {@link providerSettings} fills the defaults (pinned, no tuning, the contract's retry policy, the built-in HTTP client). */
export interface ProviderSettings {
  format: ProviderFormat;
  model: string;
  baseUrl: string;
  /** Sent as the provider's credential header; undefined: none (a local server). */
  apiKey: string | undefined;
  /** Pinned models are never routed to an alternative provider; default true. */
  pinned: boolean;
  /** Prompt caching and reasoning controls sent with every request; default none. */
  tuning: RequestTuning | undefined;
  /** Retries of a failed request; default {@link DEFAULT_RETRY_POLICY} (waits scaled by `MINICODE_RETRY_BACKOFF_MS` in `prepareRun`). */
  retryPolicy: RetryPolicy;
  /** What carries the requests (a recording client under `--record`); undefined: the built-in HTTP client. */
  http: HttpClient | undefined;
}

/** The endpoint fields a caller must give; the rest have defaults. */
export type ProviderEndpoint = Pick<ProviderSettings, 'format' | 'model' | 'baseUrl'> & Partial<ProviderSettings>;

/** Provider settings with the defaults filled in. */
export function providerSettings(endpoint: ProviderEndpoint): ProviderSettings {
  return {
    apiKey: undefined,
    pinned: true,
    tuning: undefined,
    retryPolicy: DEFAULT_RETRY_POLICY,
    http: undefined,
    ...endpoint,
  };
}
