export * from './cassette.js';
export * from './record.js';
export * from './server.js';
export * from './provider.js';
export * from './turns.js';
