#!/usr/bin/env node
// How long the sandbox's Markdown writer (src/markdown/safe-html.ts) holds the event loop on hostile
// Markdown (docs/sandbox.md, "Memory and time"): each pattern at sizes up to the sandbox's 1 MB body
// limit, and the worst inputs that are still read (just inside the bounds of src/markdown/bounds.ts).
// Prints the CPU time of a render, median and slowest of --rounds N (default 7) per case, and whether
// it was rendered or shown as text.
//
// It bundles src/markdown/ with esbuild into a temporary folder first; installs nothing.
// Run `node bench/markdown.mjs`.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at >= 0 ? Number(args[at + 1]) : 7;

const dir = mkdtempSync(join(tmpdir(), 'core-bench-markdown-'));
try {
  const out = join(dir, 'markdown.mjs');
  await build({
    stdin: {
      contents:
        "export { loadSafeHtmlRenderer } from './src/markdown/safe-html.ts';\n" +
        "export { markdownToPlainText } from './src/markdown/plain-text.ts';\n" +
        "export { markdownLimits, inlineDelimiters } from './src/markdown/bounds.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
  });
  const { loadSafeHtmlRenderer, markdownLimits, inlineDelimiters } = await import(pathToFileURL(out).href);
  const render = await loadSafeHtmlRenderer();
  const fill = (unit, n) => unit.repeat(Math.max(1, Math.floor(n / unit.length)));
  const list = (n) => Array.from({ length: n }, (_, i) => `${' '.repeat(2 * i)}- a`).join('\n');
  const patterns = {
    '*a repeated': (n) => fill('*a', n),
    '_a repeated': (n) => fill('_a', n),
    '**a repeated': (n) => fill('**a', n),
    '* x n/2, a, * x n/2': (n) => `${'*'.repeat(n / 2)}a${'*'.repeat(n / 2)}`,
    '"> " repeated': (n) => fill('> ', n),
    '"- " repeated': (n) => fill('- ', n),
    '"- a" lines': (n) => fill('- a\n', n),
    'one list item, continued': (n) => `- a\n${fill('  b\n', n)}`,
    'list nested by indentation': (n) => list(Math.floor(Math.sqrt(n))),
    '[ repeated': (n) => fill('[', n),
    '< repeated': (n) => fill('<', n),
    '<!-- repeated': (n) => fill('<!--', n),
    'table rows': (n) => `|a|b|\n|-|-|\n${fill('|*a*|_b_|\n', n)}`,
    '~~a~ lines': (n) => fill('~~a~\n', n),
    '`a repeated': (n) => fill('`a', n),
    '!a repeated': (n) => fill('!a', n),
    '\\a repeated': (n) => fill('\\a', n),
    'a@a repeated': (n) => fill('a@a ', n),
    'hard breaks': (n) => fill('a  \n', n),
    'prose with emphasis': (n) => fill('Some *emphasis*, a **strong** word and a [link](https://example.com).\n\n', n),
  };
  const inside = {
    // The most emphasis work that is still read: one paragraph at the bound.
    'emphasis at the bound (_a)': () => fill('_a', Math.floor(Math.sqrt(markdownLimits.maxEmphasisWork * 2))),
    'nesting at the bound (> )': () => `${'> '.repeat(markdownLimits.maxDepth)}a`,
    'lines at the bound ("- a" lines)': () => fill('- a\n', markdownLimits.maxLines * 4),
    'lines at the bound (one list item)': () => `- a\n${'  b\n'.repeat(markdownLimits.maxLines - 1)}`,
    'lines at the bound (lazy quote)': () => fill('> a\nb\n', markdownLimits.maxLines * 3),
    'size at the bound (prose)': () =>
      fill('Some *emphasis*, a **strong** word and a [link](https://example.com).\n\n', markdownLimits.maxChars),
  };
  const time = (text) => {
    // One render first, not timed: the first run of the lexer's code paths is compiled as it goes.
    render(text);
    // CPU time of this process, not wall time: on a shared machine the wall clock also counts the
    // time other processes had the core. The median is what a render costs, the slowest its bound.
    const spent = [];
    let html = '';
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.cpuUsage();
      html = render(text);
      const { user, system } = process.cpuUsage(started);
      spent.push((user + system) / 1000);
    }
    spent.sort((a, b) => a - b);
    return {
      median: spent[Math.floor(spent.length / 2)],
      worst: spent.at(-1),
      shown: html.startsWith('<p><em>Shown as written') ? 'as text' : 'rendered',
    };
  };
  const sizes = [4_096, 32_768, 262_144, 1_048_576];
  console.log(`CPU ms per render, median/slowest of ${ROUNDS} after one untimed (bounds: ${JSON.stringify(markdownLimits)})`);
  console.log(['pattern', ...sizes.map((s) => `${s / 1024} KB`)].join('\t'));
  let slowest = 0;
  for (const [name, make] of Object.entries(patterns)) {
    const cells = sizes.map((size) => {
      const { median, worst, shown } = time(make(size));
      slowest = Math.max(slowest, worst);
      return `${median.toFixed(1)}/${worst.toFixed(1)} ${shown}`;
    });
    console.log([name, ...cells].join('\t'));
  }
  for (const [name, make] of Object.entries(inside)) {
    const text = make();
    const { median, worst, shown } = time(text);
    slowest = Math.max(slowest, worst);
    console.log(`${name} (${text.length} characters)\t${median.toFixed(1)}/${worst.toFixed(1)} ${shown}`);
  }
  // Each inline delimiter at the inline-work bound (the longest repetition of its unit still read),
  // against `_a` at the bound measured in this run: the bound counts each delimiter by what its scan
  // costs, so every ratio should stay near 1 or below.
  const atBound = (unit) => {
    // A last line break is no part of the paragraph: the text ends with a word instead.
    const text = (n) => unit.repeat(n).replace(/\n$/, '\nend');
    let n = 1;
    while (inlineDelimiters(text(n + 1)) * text(n + 1).length <= markdownLimits.maxEmphasisWork) n++;
    return text(n);
  };
  const baseline = time(atBound('_a'));
  console.log(
    `\neach delimiter at the inline-work bound: CPU ms median/slowest, and median / median of _a (${baseline.median.toFixed(1)} ms)`,
  );
  for (const unit of ['*a', '~~a~\n', '~a', '`a', '[a', '[a](', '!a', '![a', '<a', '\\a', 'a@a ', 'http://a ', 'www.a ', 'a  \n']) {
    const text = atBound(unit);
    const { median, worst, shown } = time(text);
    slowest = Math.max(slowest, worst);
    console.log(
      [
        JSON.stringify(unit),
        `${text.length} characters`,
        `${median.toFixed(1)}/${worst.toFixed(1)} ${shown}`,
        (median / baseline.median).toFixed(2),
      ].join('\t'),
    );
  }
  console.log(`slowest render: ${slowest.toFixed(1)} ms of CPU (goal: under 100 ms)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
