#!/usr/bin/env node
// Start-up figures as ratios against `node -e 0`, measured side by side in one run: the median of
// interleaved runs of each command. Needs `npm run build` first.
//
// What users run: `core reply` without --answer-id (so a UUID is made, as by default), once with the
// settings in the environment only (CI) and once with a `.corerc.yaml` in the current folder whose
// token comes from `{env: NAME}` (a workstation). Each for --dry-run (config, validation, no network)
// and for a send to a loopback server.
//
//   BENCH_RUNS=21            interleaved runs of each case (the median is reported, and the spread);
//                            --quick: 7
//   BENCH_BIN=/path/bin.js   measure another build instead of dist/bin.js
//   BENCH_BEFORE=/path/bin.js  measure another build too, interleaved with this one in the same run,
//                            and report after/before ratios (build an older commit into a temporary
//                            folder with `git worktree add` and `npm run build`)
//   BENCH_NODE=/path/node    another Node release (the baseline and core alike)
//
// Each run is timed by bash's `time` around the process alone: its wall time, and its CPU time (user
// and system, from getrusage). On a machine shared with other work the wall time of a run depends
// on what else runs: the CPU time moves much less, and its ratios are given beside the others.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const before = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : null;
const runs = Number(process.env.BENCH_RUNS ?? (process.argv.includes('--quick') ? 7 : 21));
// Absolute: the cases run in folders of their own, where a relative path would name nothing.
const node = process.env.BENCH_NODE ? resolve(process.env.BENCH_NODE) : process.execPath;
for (const file of [bin, before]) {
  if (file !== null && !existsSync(file)) {
    console.error(`${file} is missing: run \`npm run build\` first`);
    process.exit(2);
  }
}

// A loopback server in its own process: this one blocks while it times each run.
const server = spawn(
  process.execPath,
  [
    '-e',
    `
  const http = require('node:http');
  const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.setHeader('X-Request-Id', 'bench'); res.end(); }); });
  s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise((ok) => server.stdout.once('data', (d) => ok(Number(String(d).trim()))));

const home = mkdtempSync(join(tmpdir(), 'core-bench-'));
// Two working folders under HOME: one with a config file, one without (the search then walks up to
// HOME and reads the user config folder, finding nothing).
const withConfig = join(home, 'project');
const withoutConfig = join(home, 'ci');
mkdirSync(withConfig);
mkdirSync(withoutConfig);
writeFileSync(
  join(withConfig, '.corerc.yaml'),
  [
    '# yaml-language-server: $schema=https://unpkg.com/core-cli/docs/schemas/config.schema.json',
    'profiles:',
    '  bench:',
    `    baseUrl: http://127.0.0.1:${port}`,
    '    tenant: bench',
    '    token: {env: CORE_BENCH_TOKEN}',
    '    timeout: 10s',
    '',
  ].join('\n'),
);
const common = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') };
// NODE_EXTRA_CA_CERTS is deliberately absent: it adds ~55 ms to every Node 20 start and would hide our own cost.
const envOnly = { ...common, CORE_BASE_URL: `http://127.0.0.1:${port}`, CORE_TENANT: 'bench', CORE_TOKEN: 'bench-token' };
const yamlConfig = { ...common, CORE_BENCH_TOKEN: 'bench-token' };

const reply = ['reply', '-t', 'Hello', '--core-client-id', '9223372036854775807'];
const hasHttpie = spawnSync('sh', ['-c', 'command -v http'], { encoding: 'utf8' }).status === 0;

// Each build keeps its compile cache in a folder of its own: two builds of one version would
// otherwise replace each other's cache file on every run (src/compile-cache.ts keeps one per module).
const coreCases = (label, file) => {
  const cache = { XDG_CACHE_HOME: join(home, label === '' ? '.cache' : '.cache-before') };
  const envOnly_ = { ...envOnly, ...cache };
  const yamlConfig_ = { ...yamlConfig, ...cache };
  return coreCasesWith(label, file, envOnly_, yamlConfig_);
};
const coreCasesWith = (label, file, envOnly, yamlConfig) => [
  { name: `${label}core --version`, cmd: node, args: [file, '--version'], env: envOnly, cwd: withoutConfig, core: true },
  {
    name: `${label}core reply --dry-run, env only`,
    cmd: node,
    args: [file, ...reply, '--dry-run'],
    env: envOnly,
    cwd: withoutConfig,
    core: true,
  },
  {
    name: `${label}core reply --dry-run, .corerc.yaml`,
    cmd: node,
    args: [file, ...reply, '--dry-run'],
    env: yamlConfig,
    cwd: withConfig,
    core: true,
  },
  { name: `${label}core reply (loopback), env only`, cmd: node, args: [file, ...reply], env: envOnly, cwd: withoutConfig, core: true },
  { name: `${label}core reply (loopback), .corerc.yaml`, cmd: node, args: [file, ...reply], env: yamlConfig, cwd: withConfig, core: true },
];
// The compile cache (src/compile-cache.ts) of the build measured: every case above runs with the
// cache its warm-up run wrote, as any second run of core finds it. These show what it is worth: the
// same runs without it, and a first run, which finds the cache empty and writes it.
const firstRunCache = join(home, 'first-run-cache');
const cacheCases = [
  ['reply --dry-run', [...reply, '--dry-run']],
  ['reply (loopback)', reply],
].flatMap(([label, args]) => [
  {
    name: `core ${label}, .corerc.yaml, no compile cache`,
    cmd: node,
    args: [bin, ...args],
    env: { ...yamlConfig, CORE_NO_COMPILE_CACHE: '1' },
    cwd: withConfig,
  },
  {
    name: `core ${label}, .corerc.yaml, first run (cache empty)`,
    cmd: node,
    args: [bin, ...args],
    env: { ...yamlConfig, XDG_CACHE_HOME: firstRunCache },
    cwd: withConfig,
    before: () => rmSync(firstRunCache, { recursive: true, force: true }),
  },
]);
const cases = [
  { name: 'node -e 0', cmd: node, args: ['-e', '0'], env: envOnly, cwd: withoutConfig },
  ...coreCases('', bin),
  ...cacheCases,
  ...(before ? coreCases('before: ', before) : []),
  ...(hasHttpie
    ? [
        {
          name: 'http (HTTPie, same request)',
          cmd: 'http',
          args: [
            '--ignore-stdin',
            '-q',
            'POST',
            `http://127.0.0.1:${port}/api/v1/chatbot`,
            'Authorization:Bearer bench-token',
            'X-Tenant-Name:bench',
            'text=Hello',
            'coreClientId:=9223372036854775807',
            `answerId=${crypto.randomUUID()}`,
          ],
          env: envOnly,
          cwd: withoutConfig,
        },
      ]
    : []),
];

const times = new Map(cases.map((c) => [c.name, []]));
const cpuTimes = new Map(cases.map((c) => [c.name, []]));
/** One timed run: bash's `time` reports the child's wall time and its user and system CPU time, in ms. */
const timed = (c) => {
  const r = spawnSync('bash', ['-c', 'TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>/dev/null', 'bash', c.cmd, ...c.args], {
    env: c.env,
    cwd: c.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const [real, user, system] = r.stderr.trim().split(/\s+/).slice(-3).map(Number);
  return { status: r.status, wall: real * 1000, cpu: (user + system) * 1000 };
};
const run = (c) => spawnSync(c.cmd, c.args, { env: c.env, cwd: c.cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
// Warm the file cache (and each build's compile cache, as any second run of core finds it).
for (const c of cases) {
  const r = run(c);
  if (r.status !== 0) {
    console.error(`${c.name} exited ${r.status}: ${r.error?.message ?? r.stderr}`);
    process.exitCode = 1;
  }
}
// A case that fails would be timed as a fast one: no figures then.
if (process.exitCode === 1) {
  server.kill();
  rmSync(home, { recursive: true, force: true });
  console.error('bench: a case failed (above); nothing was measured');
  process.exit(1);
}
for (let i = 0; i < runs; i++) {
  for (const c of cases) {
    c.before?.(); // not timed
    const r = timed(c);
    if (r.status !== 0 || !Number.isFinite(r.wall) || !Number.isFinite(r.cpu)) {
      console.error(`${c.name} exited ${r.status}`);
      process.exitCode = 1;
    }
    times.get(c.name).push(r.wall);
    cpuTimes.get(c.name).push(r.cpu);
  }
}
server.kill();
rmSync(home, { recursive: true, force: true });

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs) => quantile(xs, 0.5);
const base = median(times.get('node -e 0'));
const cpuBase = median(cpuTimes.get('node -e 0'));
const nodeVersion = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
console.log(
  `start-up, median of ${runs} interleaved runs, node ${nodeVersion}; spread: the middle half of the runs (25th to 75th percentile)`,
);
console.log('| command | median ms | vs node -e 0 | middle half, vs node -e 0 | CPU ms | CPU vs node -e 0 |');
console.log('|---|---:|---:|---|---:|---:|');
for (const c of cases) {
  const t = times.get(c.name);
  const m = median(t);
  const spread = `${(quantile(t, 0.25) / base).toFixed(2)}x–${(quantile(t, 0.75) / base).toFixed(2)}x`;
  const cpu = median(cpuTimes.get(c.name));
  console.log(
    `| ${c.name} | ${m.toFixed(1)} | ${(m / base).toFixed(2)}x | ${spread} | ${cpu.toFixed(1)} | ${(cpu / cpuBase).toFixed(2)}x |`,
  );
}
if (before) {
  console.log(`\nafter (${bin}) against before (${before}), same run (wall time; CPU time in brackets):`);
  console.log('| command | before | after | after / before |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases.filter((x) => x.core && !x.name.startsWith('before: '))) {
    const [a, b] = [c.name, `before: ${c.name}`].map((name) => median(times.get(name)));
    const [ac, bc] = [c.name, `before: ${c.name}`].map((name) => median(cpuTimes.get(name)));
    console.log(
      `| ${c.name} | ${(b / base).toFixed(2)}x (${(bc / cpuBase).toFixed(2)}x) | ${(a / base).toFixed(2)}x (${(ac / cpuBase).toFixed(2)}x) | ${(a / b).toFixed(2)} (${(ac / bc).toFixed(2)}) |`,
    );
  }
}
// The goals (docs/performance.md, "Start-up"), each a ratio against `node -e 0` in this run.
const goals = [
  ['core reply --dry-run, .corerc.yaml', 1.5],
  ['core reply (loopback), .corerc.yaml', 2.0],
];
console.log('\ngoals (wall time against node -e 0; CPU time in brackets):');
for (const [name, goal] of goals) {
  const wall = median(times.get(name)) / base;
  const cpu = median(cpuTimes.get(name)) / cpuBase;
  console.log(`  ${name}: ${wall.toFixed(2)}x (${cpu.toFixed(2)}x), goal at most ${goal}x: ${wall <= goal ? 'met' : 'not met'}`);
}
if (hasHttpie) {
  const core = median(times.get('core reply (loopback), env only'));
  const httpie = median(times.get('http (HTTPie, same request)'));
  console.log(`\ncore reply against HTTPie: ${(core / httpie).toFixed(2)}x the time (${core < httpie ? 'faster' : 'slower'})`);
} else {
  console.log('\nHTTPie rows skipped: `http` is not installed (apt-get install httpie).');
}
