// Built into dist/vendor/ and loaded on demand: see tsup.config.ts.
import m from 'cosmiconfig';
export default m;
