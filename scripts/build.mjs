#!/usr/bin/env node
// `npm run build`: dist/ from scratch with tsup (tsup.config.ts), then the record of the sources it
// was built from (scripts/build-state.mjs), which the tests that run the built binary check.
//
// The state is read before the build starts, so a file edited while tsup runs makes the stamp
// differ from the sources, and the next test run builds again. The old stamp is removed first: a
// build that fails leaves none, and dist/ counts as out of date until a build succeeds.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { removeStamp, root, sourceState, writeStamp } from './build-state.mjs';

const state = sourceState();
removeStamp();
rmSync(join(root, 'dist'), { recursive: true, force: true });

const tsupPackage = createRequire(import.meta.url).resolve('tsup/package.json');
const tsup = join(dirname(tsupPackage), 'dist', 'cli-default.js');
const build = spawnSync(process.execPath, [tsup], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

// tsup names the declarations of an .mjs entry .d.ts; the package's "types" names dist/sandbox.d.mts
// for the ES module and dist/sandbox.d.cts for the CommonJS build beside it.
renameSync(join(root, 'dist', 'sandbox.d.ts'), join(root, 'dist', 'sandbox.d.mts'));
copyFileSync(join(root, 'dist', 'sandbox.d.mts'), join(root, 'dist', 'sandbox.d.cts'));
writeStamp(state);
