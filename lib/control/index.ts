/** The control plane's public surface (see docs/control-plane.md). */
export * from './transcript.js';
export * from './density.js';
export * from './estimate.js';
export * from './fold.js';
export * from './compaction.js';
export * from './usage.js';
export * from './prices.js';
export * from './budget.js';
export * from './termination.js';
export * from './retry.js';
export * from './truncation.js';
export * from './timers.js';
export { closePool, configurePool, holdPool, isPoolStarted, type PoolOptions } from './pool.js';
export { compactInPool, countTokensExact, estimateContextInPool, FOLD_IN_POOL_CHARS, type PoolFold } from './offload.js';
export type { WorkerResult, CountTokensValue, EstimateContextValue } from './tasks.js';
