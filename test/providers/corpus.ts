/** The corpus loader is shared with the benchmarks (test/corpus/, which bench/ imports). */
export * from '../corpus/provider-corpus.js';
