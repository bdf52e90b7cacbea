export * from './state.js';
export { reduce, reduceOwned } from './reduce.js';
export { rebuild, createRebuilder, settleInterrupted } from './rebuild.js';
export { summarize } from './summarize.js';
