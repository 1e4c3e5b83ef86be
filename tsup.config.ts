import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// One ESM bundle with code splitting: the entry holds only what every invocation needs, and each
// heavy module (got, the prompts, the sandbox) lands in a chunk loaded by the path that uses it.
/**
 * commander requires node:child_process at load time for executable subcommands, which core does not
 * use; loading it (and node:net behind it) costs every invocation ~30 ms on Node 20. Inside commander
 * it becomes a stand-in that loads the real module on first use.
 */
const lazyChildProcess: Plugin = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'lazy-child-process', namespace: 'lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents:
        "let real; const load = () => (real ??= require('node:child_process'));\n" +
        'module.exports = new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });\n',
      loader: 'js',
    }));
  },
};

export default defineConfig({
  entry: { bin: 'src/bin.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  splitting: true,
  bundle: true,
  minify: true,
  sourcemap: false,
  clean: true,
  shims: false,
  define: { __CORE_VERSION__: JSON.stringify(pkg.version) },
  noExternal: [/^(?!typescript$).*/],
  // cosmiconfig's TypeScript loader would otherwise pull the whole compiler into the bundle.
  external: ['typescript'],
  esbuildPlugins: [lazyChildProcess],
  banner: {
    // CommonJS dependencies inside an ESM bundle call require() for Node built-ins.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
