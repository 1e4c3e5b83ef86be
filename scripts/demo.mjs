#!/usr/bin/env node
// The README's main job: start the built-in sandbox on a free port, send a reply, a greeting and two
// reason updates (one applied, one for a code that does not exist) through the built binary, show
// what each printed; then the loop of developing a bot: the example bot of docs/examples/bot/
// receives the sandbox's signed webhooks, and `core customer` plays the customer. Then it stops
// both. Needs nothing outside this machine.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '..', 'dist', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'core-demo-'));
const baseEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
for (const key of Object.keys(baseEnv)) if (key.startsWith('CORE_')) delete baseEnv[key];

// A free port for the bot, which the sandbox delivers its webhooks to.
const probe = createServer();
await new Promise((ok) => probe.listen(0, '127.0.0.1', ok));
const botPort = probe.address().port;
await new Promise((ok) => probe.close(ok));
const botUrl = `http://127.0.0.1:${botPort}/webhook`;

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--bot-url', botUrl], {
  env: baseEnv,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const env = { ...baseEnv };
let log = '';
sandbox.stderr.on('data', (chunk) => (log += chunk));
await new Promise((ok, fail) => {
  let out = '';
  const timer = setTimeout(() => fail(new Error(`the sandbox did not start:\n${out}${log}`)), 15_000);
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    for (const [, name, value] of out.matchAll(/^export (CORE_\w+)=(\S+)$/gm)) env[name] = value;
    if (env.CORE_BASE_URL && env.CORE_TENANT && env.CORE_TOKEN && env.CORE_WEBHOOK_SECRET) {
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
const run = (title, args, expected) => {
  console.log(`\n$ core ${args.map((a) => (/[\s#!?]/.test(a) ? `'${a}'` : a)).join(' ')}    # ${title}`);
  const result = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  process.stdout.write(result.stdout);
  process.stdout.write(result.stderr);
  console.log(`(exit ${result.status})`);
  if (result.status !== expected) failures += 1;
  return result;
};
for (const [title, args] of steps) run(title, args, title.includes('404') ? 4 : 0);

console.log('\nWhat the sandbox received (GET /_sandbox/messages):');
// The raw text is printed line by line (not parsed) so the long identifiers keep every digit.
const messages = await fetch(`${env.CORE_BASE_URL}/_sandbox/messages?tenant=${env.CORE_TENANT}`).then((r) => r.text());
for (const [, kind, body] of messages.matchAll(/"kind":\s*"(\w+)"[\s\S]*?"body":\s*(\{[\s\S]*?\n      \})/g)) {
  console.log(`  ${kind}: ${body.replace(/\s*\n\s*/g, ' ')}`);
}
// Developing a bot: the example bot answers the sandbox's webhooks, `core customer` is the customer.
console.log(`\n$ PORT=${botPort} node docs/examples/bot/bot.mjs &    # the example bot, with the export lines above`);
const bot = spawn(process.execPath, [resolve(import.meta.dirname, '..', 'docs', 'examples', 'bot', 'bot.mjs')], {
  env: { ...env, PORT: String(botPort) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let botLog = '';
bot.stdout.on('data', (chunk) => (botLog += chunk));
bot.stderr.on('data', (chunk) => (botLog += chunk));
await new Promise((ok, fail) => {
  const timer = setTimeout(() => fail(new Error(`the bot did not start:\n${botLog}`)), 15_000);
  bot.stdout.on('data', () => botLog.includes('bot listening') && (clearTimeout(timer), ok()));
  bot.once('exit', (code) => fail(new Error(`the bot exited with ${code}:\n${botLog}`)));
});
const said = run('the customer writes; the bot answers through the API', ['customer', 'say', 'Where is my order?'], 0);
const session = /--session (s-[0-9a-f]+)/.exec(said.stderr)?.[1];
if (session) {
  run('the customer presses the button: the bot hands over to agents', ['customer', 'press', 'Talk to a person', '--session', session], 0);
  run(
    'the thread is with agents now: no webhook, and no agent writes within 2 s (exit 6)',
    ['customer', 'say', 'Hello?', '--session', session, '--wait', '2s'],
    6,
  );
  console.log(`\nThe transcript (GET /_sandbox/conversations/${session}):`);
  const transcript = await fetch(`${env.CORE_BASE_URL}/_sandbox/conversations/${session}`).then((r) => r.text());
  for (const [, type, rest] of transcript.matchAll(/"type": "([\w.]+)",\n([\s\S]*?)\n    \}/g)) {
    const text = /"text": ("[^"]*")/.exec(rest)?.[1] ?? '';
    const status = /"status": (\d+)/.exec(rest)?.[1];
    console.log(`  ${type}${text ? ` ${text}` : ''}${status ? ` (status ${status})` : ''}`);
  }
} else failures += 1;
console.log('\nThe bot log:');
process.stdout.write(botLog);
bot.kill('SIGINT');
await new Promise((ok) => bot.once('exit', ok));

console.log('\nThe sandbox log:');
process.stdout.write(log);
sandbox.kill('SIGINT');
await new Promise((ok) => sandbox.once('exit', ok));
console.log(failures === 0 ? '\nDemo complete: the sandbox has stopped.' : `\nDemo finished with ${failures} unexpected exit code(s).`);
process.exit(failures === 0 ? 0 : 1);
