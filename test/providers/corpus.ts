/** The corpus loader lives with the benchmarks (compiled with them); tests share it. */
export * from '../../bench/provider-corpus.js';
