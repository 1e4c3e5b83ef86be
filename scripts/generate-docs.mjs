#!/usr/bin/env node
// Writes the generated files under docs/: the JSON Schemas (docs/schemas), the OpenAPI description
// (docs/openapi.json) and the command reference (docs/commands). They are made by TypeScript code in
// scripts/docs/, which Node 20 cannot run directly, so this runs the test that checks them
// (test/docs/generated.test.ts) with UPDATE_DOCS=1, which makes it write them instead.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const result = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/docs/generated.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, UPDATE_DOCS: '1' },
});
if (result.status === 0) console.log('\nWrote docs/schemas, docs/openapi.json and docs/commands; review them with git diff.');
process.exit(result.status ?? 1);
