export * from './cassette.js';
export * from './record.js';
export * from './scripted.js';
export * from './server.js';
export * from './provider.js';
export * from './turns.js';
