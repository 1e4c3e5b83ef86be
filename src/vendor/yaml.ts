// Built into dist/vendor/ and loaded on demand: see tsup.config.ts.
import m from 'yaml';
export default m;
