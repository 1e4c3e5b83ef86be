import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath } from '../helpers/run.js';

/**
 * Makes `dir`/bin hold a `core` that runs the built binary, as an installed core would be (the
 * completion scripts call `core` for profile names), and returns that folder, to put first on PATH.
 */
export function coreOnPath(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'core'), `#!/bin/sh\nexec "${process.execPath}" "${binPath}" "$@"\n`);
  chmodSync(join(bin, 'core'), 0o755);
  return bin;
}
