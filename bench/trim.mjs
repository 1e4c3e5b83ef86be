#!/usr/bin/env node
// Trimming the user's own input, end to end (src/text.ts): `core reply --dry-run` with a base URL
// of N slashes and a letter, and a token of N spaces between two words, against the same command
// with short values, in the same run. The ratio is what matters: it stays near 1 when trimming is
// linear; the regular expressions it replaced (/\/+$/, /^ +| +$/g) took seconds at N = 60,000.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '..', 'dist', 'bin.js');
const N = Number(process.env.BENCH_TRIM_N ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const argv = ['reply', '--dry-run', '--core-client-id', '1', '-t', 'Hello'];

function run(env) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [bin, ...argv], { env: { PATH: process.env.PATH, HOME: '/nonexistent', ...env } });
  const ms = performance.now() - started;
  if (result.status !== 0 && result.status !== 2) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cases = {
  baseline: { CORE_BASE_URL: 'https://chat.example.com', CORE_TENANT: 'acme', CORE_TOKEN: 'tok_12345678' },
  [`base URL of ${N} slashes and a letter`]: {
    CORE_BASE_URL: `https://chat.example.com${'/'.repeat(N)}a`,
    CORE_TENANT: 'acme',
    CORE_TOKEN: 'tok_12345678',
  },
  [`token of ${N} spaces between two words`]: {
    CORE_BASE_URL: 'https://chat.example.com',
    CORE_TENANT: 'acme',
    CORE_TOKEN: `tok_1234${' '.repeat(N)}x`,
  },
};
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
// Interleaved, so a slow moment of the machine falls on every case alike.
for (let i = 0; i < RUNS; i += 1) for (const [name, env] of Object.entries(cases)) times[name].push(run(env));
const base = median(times.baseline);
for (const [name, values] of Object.entries(times)) {
  console.log(`${name.padEnd(44)} ${median(values).toFixed(0).padStart(6)} ms  ${(median(values) / base).toFixed(2)}x`);
}
