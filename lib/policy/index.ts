export * from './decide.js';
export * from './approval-events.js';
export * from './credentials.js';
