#!/usr/bin/env node
// Start-up figures as ratios against `node -e 0`, measured side by side in one run:
// the median of interleaved runs of each command. Needs `npm run build` first.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// BENCH_BIN=/path/to/bin.js measures another build (an older commit's, say) in the same way.
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const runs = Number(process.env.BENCH_RUNS ?? 21);
// BENCH_NODE=/path/to/node measures another Node release (both the baseline and core).
const node = process.env.BENCH_NODE ?? process.execPath;
if (!existsSync(bin)) {
  console.error('dist/bin.js is missing: run `npm run build` first');
  process.exit(2);
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
const env = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  CORE_BASE_URL: `http://127.0.0.1:${port}`,
  CORE_TENANT: 'bench',
  CORE_TOKEN: 'bench-token',
};
// NODE_EXTRA_CA_CERTS is deliberately absent: it adds ~55 ms to every Node 20 start and would hide our own cost.

const reply = ['reply', '-t', 'Hello', '--core-client-id', '9223372036854775807', '--answer-id', 'bench-1'];
const hasHttpie = spawnSync('sh', ['-c', 'command -v http'], { encoding: 'utf8' }).status === 0;
const cases = [
  { name: 'node -e 0', cmd: node, args: ['-e', '0'] },
  { name: 'core --version', cmd: node, args: [bin, '--version'] },
  { name: 'core reply --dry-run', cmd: node, args: [bin, ...reply, '--dry-run'] },
  { name: 'core reply (loopback)', cmd: node, args: [bin, ...reply] },
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
            'answerId=bench-1',
          ],
        },
      ]
    : []),
];

const times = new Map(cases.map((c) => [c.name, []]));
for (const c of cases) spawnSync(c.cmd, c.args, { env, stdio: 'ignore' }); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (const c of cases) {
    const start = process.hrtime.bigint();
    const r = spawnSync(c.cmd, c.args, { env, stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) {
      console.error(`${c.name} exited ${r.status}`);
      process.exitCode = 1;
    }
    times.get(c.name).push(ms);
  }
}
server.kill();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const base = median(times.get('node -e 0'));
const httpie = hasHttpie ? median(times.get('http (HTTPie, same request)')) : null;
const nodeVersion = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
console.log(`start-up, median of ${runs} interleaved runs, node ${nodeVersion}`);
console.log('| command | median ms | vs node -e 0 |');
console.log('|---|---|---|');
for (const c of cases) {
  const m = median(times.get(c.name));
  console.log(`| ${c.name} | ${m.toFixed(1)} | ${(m / base).toFixed(2)}x |`);
}
if (httpie !== null) {
  const core = median(times.get('core reply (loopback)'));
  console.log(`\ncore reply against HTTPie: ${(core / httpie).toFixed(2)}x the time (${core < httpie ? 'faster' : 'slower'})`);
} else {
  console.log('\nHTTPie rows skipped: `http` is not installed (apt-get install httpie).');
}
