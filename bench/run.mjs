#!/usr/bin/env node
// `npm run bench`: every benchmark, one after another.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
let failed = false;
for (const script of ['startup.mjs', 'batch.mjs', 'sandbox.mjs', 'stopping.mjs', 'trim.mjs']) {
  const path = join(dir, script);
  if (!existsSync(path)) continue;
  console.log(`\n## ${script}\n`);
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const r = spawnSync(process.execPath, [path], { stdio: 'inherit', env });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
