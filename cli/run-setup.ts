/** Kept for imports written before the setup moved to lib/agent/run-setup.ts. */
export * from '../lib/agent/run-setup.js';
