#!/usr/bin/env node
// What loading a test file with a large examples table costs (docs/testing-bots.md, "Examples"): the
// file is read and checked with loadTests (src/testing/load.ts) as `core test` does, for tables of
// N rows, in YAML and JSON. Prints the CPU time of a load (median of --rounds N, default 3) and the
// cost per row against the cost per row of the smallest table measured in the same run: near 1 when
// loading is linear in the rows (it was quadratic: 40,000 rows took 10.6 s, 200,000 about 270 s).
//
// It bundles src/ with esbuild into a temporary folder first; installs nothing.
// Run `node bench/examples-load.mjs` (`ROWS=2000,40000` to choose the table sizes).
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at >= 0 ? Number(args[at + 1]) : 3;

const dir = mkdtempSync(join(tmpdir(), 'core-bench-examples-'));
try {
  const out = join(dir, 'bundle.mjs');
  await build({
    stdin: { contents: "export { loadTests } from './src/testing/load.ts';\n", resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const { loadTests } = await import(pathToFileURL(out).href);
  const yaml = (rows) =>
    `name: echo \${word}\nexamples:\n${Array.from({ length: rows }, (_, i) => `  - {word: w${i % 1000}}`).join('\n')}\nsteps:\n  - customer: \${word}\n  - bot: {text: "You said: \${word}"}\n`;
  const json = (rows) =>
    JSON.stringify({
      name: 'echo ${word}',
      examples: Array.from({ length: rows }, (_, i) => ({ word: `w${i % 1000}` })),
      steps: [{ customer: '${word}' }, { bot: { text: 'You said: ${word}' } }],
    });
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`loadTests of one file with N examples rows (names repeated every 1,000 rows), CPU ms, median of ${ROUNDS}`);
  console.log(['format', 'rows', 'ms', 'µs per row', 'per row / per row at 2,000'].join('\t'));
  for (const [format, make] of [
    ['yaml', yaml],
    ['json', json],
  ]) {
    let baseline;
    for (const rows of (process.env.ROWS ?? '2000,10000,40000,200000').split(',').map(Number)) {
      const file = `t-${rows}.${format}`;
      writeFileSync(join(dir, file), make(rows));
      const spent = [];
      for (let round = 0; round < ROUNDS; round++) {
        const started = process.cpuUsage();
        const [loaded] = await loadTests([file], dir);
        const { user, system } = process.cpuUsage(started);
        if (loaded.conversations.length !== rows) throw new Error(`loaded ${loaded.conversations.length} of ${rows}`);
        spent.push((user + system) / 1000);
      }
      const ms = median(spent);
      const perRow = (ms * 1000) / rows;
      baseline ??= perRow;
      console.log([format, rows, ms.toFixed(0), perRow.toFixed(1), (perRow / baseline).toFixed(2)].join('\t'));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
