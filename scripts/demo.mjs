#!/usr/bin/env node
// The README's main job: start the built-in sandbox on a free port, send a reply, a greeting and two
// reason updates (one applied, one for a code that does not exist) through the built binary, show
// what each printed, then stop the sandbox. Needs nothing outside this machine.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '..', 'dist', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'core-demo-'));
const baseEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
for (const key of Object.keys(baseEnv)) if (key.startsWith('CORE_')) delete baseEnv[key];

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env: baseEnv, stdio: ['ignore', 'pipe', 'pipe'] });
const env = { ...baseEnv };
let log = '';
sandbox.stderr.on('data', (chunk) => (log += chunk));
await new Promise((ok, fail) => {
  let out = '';
  const timer = setTimeout(() => fail(new Error(`the sandbox did not start:\n${out}${log}`)), 15_000);
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    for (const [, name, value] of out.matchAll(/^export (CORE_\w+)=(\S+)$/gm)) env[name] = value;
    if (env.CORE_BASE_URL && env.CORE_TENANT && env.CORE_TOKEN) {
      clearTimeout(timer);
      process.stdout.write(out.replace(/\n?$/, '\n'));
      ok();
    }
  });
  sandbox.once('exit', (code) => fail(new Error(`the sandbox exited with ${code}:\n${out}${log}`)));
});

const steps = [
  [
    'a bot reply, addressed by the internal client ID',
    [
      'reply',
      '--core-client-id',
      '9223372036854775807',
      '-t',
      'Your order has shipped.',
      '--quick-reply',
      'Track it',
      '--quick-reply',
      'Thanks',
    ],
  ],
  ['a proactive greeting', ['greet', '--core-client-id', '1234567', '-t', 'Hi! Can we help with anything?']],
  [
    'a reason update that is applied',
    ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch break', '--name', 'de=Mittagspause', '--color', '#FFB300', '--inactive'],
  ],
  ['a reason update for a code that does not exist (the service answers 404)', ['reason', 'update', '--code', 'NAP', '--name', 'en=Nap']],
];
let failures = 0;
for (const [title, args] of steps) {
  console.log(`\n$ core ${args.map((a) => (/[\s#!?]/.test(a) ? `'${a}'` : a)).join(' ')}    # ${title}`);
  const run = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  process.stdout.write(run.stdout);
  process.stdout.write(run.stderr);
  console.log(`(exit ${run.status})`);
  const expected = title.includes('404') ? 4 : 0;
  if (run.status !== expected) failures += 1;
}

console.log('\nWhat the sandbox received (GET /_sandbox/messages):');
// The raw text is printed line by line (not parsed) so the long identifiers keep every digit.
const messages = await fetch(`${env.CORE_BASE_URL}/_sandbox/messages?tenant=${env.CORE_TENANT}`).then((r) => r.text());
for (const [, kind, body] of messages.matchAll(/"kind":\s*"(\w+)"[\s\S]*?"body":\s*(\{[\s\S]*?\n      \})/g)) {
  console.log(`  ${kind}: ${body.replace(/\s*\n\s*/g, ' ')}`);
}
console.log('\nThe sandbox log:');
process.stdout.write(log);
sandbox.kill('SIGINT');
await new Promise((ok) => sandbox.once('exit', ok));
console.log(failures === 0 ? '\nDemo complete: the sandbox has stopped.' : `\nDemo finished with ${failures} unexpected exit code(s).`);
process.exit(failures === 0 ? 0 : 1);
