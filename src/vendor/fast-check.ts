// Built into dist/vendor/ and loaded on demand: see tsup.config.ts.
export * from 'fast-check';
