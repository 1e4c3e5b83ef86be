// Built into dist/vendor/ and loaded on demand: see tsup.config.ts. The YAML parser cosmiconfig's
// loader uses, read directly for a YAML config file (src/config/locate.ts), and the fast reading of
// a `core test` file (src/testing/fast-yaml.ts).
export { load, FAILSAFE_SCHEMA, Type } from 'js-yaml';
