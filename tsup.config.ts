import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// One ESM bundle with code splitting: the entry holds only what every invocation needs, and each
// heavy module (got, the prompts, the sandbox) lands in a chunk loaded by the path that uses it.
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
  banner: {
    // CommonJS dependencies inside an ESM bundle call require() for Node built-ins.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
});
