#!/usr/bin/env node
// `npm run bench`: every benchmark, one after another; `npm run bench -- --quick` passes --quick to
// those that have a quick mode (smaller counts, fewer rounds).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
let failed = false;
const quick = process.argv.includes('--quick');
const quickScripts = new Set(['exchange.mjs', 'startup.mjs', 'batch.mjs', 'fuzz.mjs', 'state.mjs']);
for (const script of [
  'startup.mjs',
  'batch.mjs',
  'sandbox.mjs',
  'exchange.mjs',
  'check-bot.mjs',
  'fuzz.mjs',
  'stopping.mjs',
  'trim.mjs',
  'state.mjs',
]) {
  const path = join(dir, script);
  if (!existsSync(path)) continue;
  console.log(`\n## ${script}\n`);
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const r = spawnSync(process.execPath, [path, ...(quick && quickScripts.has(script) ? ['--quick'] : [])], { stdio: 'inherit', env });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
