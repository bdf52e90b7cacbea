export * from './store.js';
export * from './location.js';
export * from './session-index.js';
export * from './content-store.js';
export { BATCH_COMPRESSION_THRESHOLD } from './databases.js';
