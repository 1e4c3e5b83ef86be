import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// One ESM bundle with code splitting: the entry holds only what every invocation needs, and each
// heavy module (got, the prompts, the sandbox) lands in a chunk loaded by the path that uses it.
/**
 * Modules that a dependency loads at start-up but that core never uses on the paths it takes, each
 * replaced (only inside that dependency) by a stand-in that loads the real module on first use:
 * - commander requires node:child_process (and node:net behind it) for executable subcommands,
 *   which core does not have: ~30 ms on every Node 20 start;
 * - got imports http2-wrapper, which builds a TLS socket while loading (a secure context with every
 *   root certificate, ~30 ms), for the `http2` option core never sets.
 */
const lazyModules: Array<{ module: RegExp; importer: RegExp; real: string }> = [
  { module: /^(node:)?child_process$/, importer: /[\\/]commander[\\/]/, real: 'node:child_process' },
  { module: /^http2-wrapper$/, importer: /[\\/]got[\\/]/, real: 'http2-wrapper' },
];

const lazyDependencies: Plugin = {
  name: 'lazy-dependencies',
  setup(build) {
    for (const [index, lazy] of lazyModules.entries()) {
      build.onResolve({ filter: lazy.module }, (args) =>
        lazy.importer.test(args.importer) && args.namespace !== 'lazy' ? { path: String(index), namespace: 'lazy' } : undefined,
      );
    }
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      // `__esModule` and `then` are answered without loading, so the bundler's interop and promise
      // checks do not defeat the laziness.
      contents:
        `let real; const load = () => (real ??= require(${JSON.stringify(lazyModules[Number(args.path)]!.real)}));\n` +
        'module.exports = new Proxy({}, {\n' +
        "  get: (_, key) => (key === '__esModule' || key === 'then' ? undefined : load()[key]),\n" +
        '  has: (_, key) => key in load(),\n' +
        '});\n',
      loader: 'js',
      resolveDir: process.cwd(),
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
  esbuildPlugins: [lazyDependencies],
  banner: {
    // CommonJS dependencies inside an ESM bundle call require() for Node built-ins.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
