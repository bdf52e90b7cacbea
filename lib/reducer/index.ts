export * from './state.js';
export { reduce, reduceOwned } from './reduce.js';
export { rebuild, createRebuilder, settleInterrupted, type RebuildOptions, type Rebuilder } from './rebuild.js';
export { summarize, type RunSummary } from './summarize.js';
export { addUsage, replaceUsage } from './content.js';
