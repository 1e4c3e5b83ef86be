import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

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

/**
 * Modules replaced inside one dependency by a module of ours that does the same job smaller:
 * - the editor prompt's iconv-lite (500 KB of encoding tables) by Node's TextDecoder
 *   (src/vendor/iconv-lite-stand-in.ts).
 * The build fails if the dependency stops importing the module, so an upgrade that changes it is seen.
 */
const standIns: Array<{ module: string; importer: RegExp; file: string }> = [
  { module: 'iconv-lite', importer: /[\\/]@inquirer[\\/]external-editor[\\/]/, file: 'src/vendor/iconv-lite-stand-in.ts' },
];

const standInModules: Plugin = {
  name: 'stand-in-modules',
  setup(build) {
    const used = new Set<string>();
    for (const standIn of standIns) {
      build.onResolve({ filter: new RegExp(`^${standIn.module}$`) }, (args) => {
        if (!standIn.importer.test(args.importer)) return undefined;
        used.add(standIn.module);
        return { path: resolvePath(standIn.file) };
      });
    }
    build.onEnd((result) => {
      if (result.errors.length > 0 || !build.initialOptions.entryPoints) return;
      const entries = JSON.stringify(build.initialOptions.entryPoints);
      if (!entries.includes('inquirer-editor')) return;
      for (const standIn of standIns) {
        if (!used.has(standIn.module))
          throw new Error(`stand-in for ${standIn.module} was not used: its importer changed; review tsup.config.ts`);
      }
    });
  },
};

/**
 * got's type checks (@sindresorhus/is) build two `Intl.ListFormat` objects while they load, for the
 * message of a failed check of several values: about 15 ms and 6 MB (ICU's list patterns) on every
 * start that sends a request, for a message core never causes. The build rewrites the two
 * constructions into formatters made on first use, with the same arguments, so the message is the
 * same. The build fails when the pattern is not found exactly twice (an upgrade changed it): then
 * look at the new code and update `listFormatPattern`.
 */
export const listFormatPattern =
  /const (andFormatter|orFormatter) = new Intl\.ListFormat\(('en', \{ style: 'long', type: '(?:conjunction|disjunction)' \})\);/g;

export function deferListFormat(source: string, file: string): string {
  let found = 0;
  const contents = source.replace(listFormatPattern, (_match, name: string, args: string) => {
    found += 1;
    return `const ${name} = __lazyListFormat(${args});`;
  });
  if (found !== 2) {
    throw new Error(
      `${file}: expected 2 constructions of Intl.ListFormat to defer, found ${found}: @sindresorhus/is changed; review listFormatPattern in tsup.config.ts`,
    );
  }
  return (
    `${contents}\n` +
    'function __lazyListFormat(locale, options) {\n' +
    '  let formatter;\n' +
    '  return { format: (list) => (formatter ??= new Intl.ListFormat(locale, options)).format(list) };\n' +
    '}\n'
  );
}

const isDistribution = /[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/;

/**
 * A plugin that rewrites one file of got's build (the vendor/got bundle) with `rewrite` as it loads, and
 * fails the build when got no longer loads that file, so that an upgrade cannot silently undo it.
 */
function gotFileRewrite(name: string, filter: RegExp, file: string, rewrite: (source: string, path: string) => string): Plugin {
  return {
    name,
    setup(build) {
      let patched = false;
      build.onLoad({ filter }, async (args) => {
        const contents = rewrite(await readFile(args.path, 'utf8'), args.path);
        patched = true;
        return { contents, loader: 'js' };
      });
      build.onEnd((result) => {
        if (result.errors.length > 0 || !JSON.stringify(build.initialOptions.entryPoints ?? '').includes('vendor/got')) return;
        if (!patched) throw new Error(`got no longer loads ${file}: review the ${name} plugin in tsup.config.ts`);
      });
    },
  };
}

export const lazyListFormat = gotFileRewrite('lazy-list-format', isDistribution, '@sindresorhus/is/distribution/index.js', deferListFormat);

/**
 * got builds the options of every request it sends to node:http (`Options#createNativeRequestOptions`)
 * as an object literal that starts with two spreads (`{ ...cacheOptions, ...unixOptions, ALPNProtocols,
 * ... }`) followed by 31 named properties. On Node 20 (V8 11.3) each property defined after a spread
 * in a literal takes V8's slow path, ~0.5 to 0.8 µs each: ~25 µs a request, a tenth of what a batch
 * spends per reason (docs/performance.md, "Batches, fifth round"); Node 24 builds the whole literal
 * in ~0.6 µs. The build moves the two spreads after the literal, through a helper that copies only the
 * keys the literal does not define, the later spread first: the same properties with the same values
 * (the literal's win, then the Unix socket's, then the cache's), in another order, which node:http
 * does not read. The build fails when the code is not found exactly once (an upgrade changed it):
 * then look at the new code and update `nativeOptionsHead` and `nativeOptionsTail`.
 */
export const nativeOptionsHead = `        return {
            ...internals.cacheOptions,
            ...this._unixOptions,
            // HTTPS options`;
export const nativeOptionsTail = `            h2session: internals.h2session,
        };
    }`;

export function spreadNativeOptionsLast(source: string, file: string): string {
  const head = source.indexOf(nativeOptionsHead);
  const tail = head < 0 ? -1 : source.indexOf(nativeOptionsTail, head);
  const once = head >= 0 && source.indexOf(nativeOptionsHead, head + 1) < 0 && tail >= 0 && tail - head < 4000;
  if (!once) {
    throw new Error(
      `${file}: expected got's createNativeRequestOptions literal once (two spreads, then its options): got changed; review nativeOptionsHead in tsup.config.ts`,
    );
  }
  const body = source.slice(head + nativeOptionsHead.length, tail);
  return [
    source.slice(0, head),
    '        return __withOwnDefaults({\n            // HTTPS options',
    body,
    '            h2session: internals.h2session,\n        }, this._unixOptions, internals.cacheOptions);\n    }',
    source.slice(tail + nativeOptionsTail.length),
    '\n/** Copies the enumerable own properties of each source that `target` lacks, earlier sources first: `{ ...last, ..., ...first, ...target }`. */',
    'function __withOwnDefaults(target, ...sources) {',
    '  for (const source of sources) {',
    '    if (source === undefined || source === null) continue;',
    '    for (const key of Reflect.ownKeys(source)) {',
    '      if (Object.prototype.propertyIsEnumerable.call(source, key) && !Object.prototype.hasOwnProperty.call(target, key)) target[key] = source[key];',
    '    }',
    '  }',
    '  return target;',
    '}\n',
  ].join('\n');
}

const isGotOptions = /[\\/]got[\\/]dist[\\/]source[\\/]core[\\/]options\.js$/;

export const gotNativeOptions = gotFileRewrite('got-native-options', isGotOptions, 'dist/source/core/options.js', spreadNativeOptionsLast);

/**
 * Node built-ins that only some paths use (the sandbox's server, token commands, batch reading).
 * esbuild hoists every import of a built-in to the top of the ESM bundle, so without this each run
 * would load all of them (~12 ms on Node 20). Imported from core's own code they become stand-ins
 * too: a named import reads through the stand-in's prototype, so the module loads on first use.
 */
const lazyBuiltins = /^(node:)?(http|https|child_process|crypto|stream|stream\/promises|timers\/promises|readline|net|tls)$/;

const lazyDependencies: Plugin = {
  name: 'lazy-dependencies',
  setup(build) {
    for (const [index, lazy] of lazyModules.entries()) {
      build.onResolve({ filter: lazy.module }, (args) =>
        lazy.importer.test(args.importer) && args.namespace !== 'lazy' ? { path: lazy.real, namespace: 'lazy' } : undefined,
      );
      void index;
    }
    build.onResolve({ filter: lazyBuiltins }, (args) =>
      /[\\/]src[\\/]/.test(args.importer) && args.namespace !== 'lazy'
        ? { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: 'lazy' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      // `__esModule` and `then` are answered without loading, so the bundler's interop and promise
      // checks do not defeat the laziness; the prototype serves named imports.
      contents:
        `let real; const load = () => (real ??= require(${JSON.stringify(args.path)}));\n` +
        'const proto = new Proxy({}, { get: (_, key) => load()[key] });\n' +
        'module.exports = new Proxy({}, {\n' +
        "  get: (_, key) => (key === '__esModule' || key === 'then' ? undefined : load()[key]),\n" +
        '  has: (_, key) => key in load(),\n' +
        '  getPrototypeOf: () => proto,\n' +
        '});\n',
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * Third-party modules that only some paths need. Each has a one-line module in src/vendor/ that is
 * built into dist/vendor/; project code reaches it with `await import('<package>')`, which the
 * application bundle turns into an import of that file, so a run loads only what its path uses.
 */
const vendor = [
  'got',
  'cosmiconfig',
  'js-yaml',
  'yaml',
  'cli-progress',
  'mime/lite',
  'marked',
  '@inquirer/input',
  '@inquirer/select',
  '@inquirer/confirm',
  '@inquirer/editor',
  '@inquirer/checkbox',
  '@inquirer/password',
  '@inquirer/number',
  // core mcp alone: the server, its stdio transport, and the full zod its tools' schemas are
  // written in (core's own schemas use zod/mini; the full one would double main.cjs, which every
  // run reads and hashes).
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/stdio.js',
  'zod',
  // core check-bot --fuzz alone: generation and shrinking.
  'fast-check',
];
const vendorFile = (name: string) => `vendor/${name.replace('@', '').replace(/\.js$/, '').replace(/\//g, '-')}`;

/**
 * In the application bundle, every vendor module stays a file of its own (dist/vendor/<name>.cjs),
 * loaded by `require` on first use, and bin.js reaches main.cjs through src/compile-cache.ts.
 */
const separateFiles: Plugin = {
  name: 'separate-files',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (vendor.includes(args.path)) return { path: `./${vendorFile(args.path)}.cjs`, external: true };
      return undefined;
    });
  },
};

/**
 * The sandbox's page (src/sandbox/page/: HTML, CSS and plain ES modules, run by the browser as
 * written) is copied beside the bundle into dist/page/, where src/sandbox/page.ts finds it
 * (`new URL('./page/', import.meta.url)` is dist/page/ from dist/main.cjs, and src/sandbox/page/ from
 * the sources), so the package ships it and no user ever runs a build step for it.
 */
const copyPage: Plugin = {
  name: 'copy-page',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length === 0) cpSync('src/sandbox/page', 'dist/page', { recursive: true });
    });
  },
};

/** dist/package.json: the files in dist/ are CommonJS (bin.js among them). */
const commonJsFolder: Plugin = {
  name: 'common-js-folder',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      mkdirSync('dist', { recursive: true });
      writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
    });
  },
};

const shared: Options = {
  platform: 'node',
  target: 'node20',
  bundle: true,
  // CORE_BUILD_UNMINIFIED=1 keeps names, for reading a CPU profile (docs/performance.md, "Start-up").
  minify: process.env.CORE_BUILD_UNMINIFIED !== '1',
  sourcemap: false,
  clean: false,
  // import.meta.url in CommonJS (src/sandbox/page.ts, src/version.ts), __filename and __dirname in ESM.
  shims: true,
  // Keep `node:` specifiers as written, so the lazy built-ins below can see them.
  removeNodeProtocol: false,
  noExternal: [/^(?!typescript$).*/],
  // cosmiconfig's TypeScript loader would otherwise pull the whole compiler into the bundle.
  external: ['typescript'],
};

/**
 * The application is CommonJS (dist/main.cjs, dist/vendor/*.cjs) so that src/compile-cache.ts can
 * compile it with V8's code cache on Node 20 (`vm.Script` and `cachedData`; Node 20 has no such
 * cache for ES modules without a flag). bin.js stays an ES module: the entry point, its fast path
 * for --version, the signals.
 */
export default defineConfig([
  // The entry point: the --version fast path, signals, and the loader of main.cjs. CommonJS as
  // well: an ES module entry point costs Node 20 its ES module loader, ~4 ms on every run.
  // dist/package.json says so, since the package itself is "type": "module".
  {
    ...shared,
    format: ['cjs'],
    entry: { bin: 'src/bin.ts' },
    outExtension: () => ({ js: '.js' }),
    splitting: false,
    define: { __CORE_VERSION__: JSON.stringify(pkg.version) },
    esbuildPlugins: [commonJsFolder],
  },
  // The application: one file holding all of core's own code with commander, zod and chalk. One
  // file loads faster than many small chunks. Its `import()`s become `require()`s: code compiled
  // with a cache on Node 20 cannot run `import()`.
  {
    ...shared,
    format: ['cjs'],
    entry: { main: 'src/main.ts' },
    splitting: false,
    define: { __CORE_VERSION__: JSON.stringify(pkg.version) },
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
    esbuildPlugins: [separateFiles, lazyDependencies, copyPage],
  },
  // `core-cli/sandbox` (src/library/sandbox.ts): the sandbox and its customer for a bot's own tests.
  // An ES module of its own, beside the CLI's files and never loaded by them, so bin.js starts as
  // fast as before. It is dist/sandbox.mjs (dist/package.json makes .js CommonJS), in dist/ itself
  // so that the sandbox finds its page at ./page/ as main.cjs does. Its declarations
  // (dist/sandbox.d.mts) are generated from the sources by tsup's dts build: none is kept by hand.
  // Whitespace and syntax are minified, names are not, so its stack traces stay readable. Nothing is
  // lazy here: a test suite loads it once.
  {
    ...shared,
    format: ['esm'],
    entry: { sandbox: 'src/library/sandbox.ts' },
    outExtension: () => ({ js: '.mjs', dts: '.d.mts' }),
    minify: false,
    esbuildOptions(options) {
      options.minifyWhitespace = true;
      options.minifySyntax = true;
    },
    splitting: false,
    dts: { entry: { sandbox: 'src/library/sandbox.ts' } },
    define: { __CORE_VERSION__: JSON.stringify(pkg.version) },
    // Bundled CommonJS dependencies call require() for Node's built-ins.
    banner: { js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
  },
  // The same library as CommonJS (dist/sandbox.cjs), for test suites that `require('core-cli/sandbox')`
  // (jest without its ES module mode, say): package.json's `exports` gives it under the `require`
  // condition. The same sources; `import.meta.url` (the page's folder) is shimmed from __filename, so
  // it finds dist/page/ too. Its declarations are the ES module's, copied by the build script as
  // dist/sandbox.d.cts, the name TypeScript looks for beside a .cjs file.
  {
    ...shared,
    format: ['cjs'],
    entry: { sandbox: 'src/library/sandbox.ts' },
    outExtension: () => ({ js: '.cjs' }),
    minify: false,
    esbuildOptions(options) {
      options.minifyWhitespace = true;
      options.minifySyntax = true;
    },
    splitting: false,
    define: { __CORE_VERSION__: JSON.stringify(pkg.version) },
  },
  // Third-party modules loaded on demand, one self-contained file each. cosmiconfig keeps its
  // `import()` (for .mjs config files): src/compile-cache.ts leaves such a module to Node's loader.
  {
    ...shared,
    format: ['cjs'],
    entry: Object.fromEntries(vendor.map((name) => [vendorFile(name), `src/${vendorFile(name)}.ts`])),
    splitting: false,
    // A module whose only export is a default export exports that value itself, as a CommonJS
    // package does, so main.cjs's `import()` (now a `require()` with Node's interop: `default` is
    // module.exports) finds the same shapes as it did from ES modules, and src/interop.ts holds.
    footer: {
      js: 'if (module.exports.__esModule && Object.keys(module.exports).join() === "default") module.exports = module.exports.default;',
    },
    esbuildPlugins: [standInModules, lazyListFormat, gotNativeOptions, lazyDependencies],
  },
]);
