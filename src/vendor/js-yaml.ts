// Built into dist/vendor/ and loaded on demand: see tsup.config.ts. The YAML parser cosmiconfig's
// loader uses, read directly for a YAML config file (src/config/locate.ts).
export { load } from 'js-yaml';
