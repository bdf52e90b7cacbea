export * from './enums.js';
export * from './content-ref.js';
export * from './payloads.js';
export * from './registry.js';
export * from './envelope.js';
export { draft } from './draft.js';
export * from './enveloper.js';
