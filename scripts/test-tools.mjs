// Before the tests run: the programs outside Node that some tests need (test/helpers/tools.json).
// As root on a machine with apt-get, the missing ones are installed, saying so; otherwise they are
// named with the command that installs them. Without them those tests fail (or, with
// CORE_TEST_ALLOW_SKIP=1, are skipped and listed), so this only makes the outcome plain early.
import { spawnSync } from 'node:child_process';
import { toolList } from './vitest-run.mjs';

const asRoot = process.getuid?.() === 0;

function present(tool) {
  const [command, ...args] = tool.probe;
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** The tools this run needs that do not run here, as [name, entry] pairs. */
export function missingTools() {
  return Object.entries(toolList.tools).filter(([, tool]) => (!tool.onlyAsRoot || asRoot) && !present(tool));
}

/** The apt-get command line that installs `missing`. */
export function aptCommand(missing) {
  const packages = [...new Set(missing.map(([, tool]) => tool.debian))].sort();
  return `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * Installs what is missing where it can (root, apt-get), else prints what is missing and how to
 * install it. Returns the names of the tools still missing.
 */
export function ensureTools() {
  let missing = missingTools();
  if (missing.length === 0) return [];
  const names = missing.map(([name]) => name).join(', ');
  const command = aptCommand(missing);
  const canInstall = asRoot && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (canInstall) {
    console.log(
      `\nThe tests need ${names}, which ${missing.length === 1 ? 'is' : 'are'} not installed. Installing, as root:\n  ${command}\n`,
    );
    const install = spawnSync('sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (install.status !== 0) console.log(`\napt-get failed (exit status ${install.status ?? install.signal}).`);
    missing = missingTools();
    if (missing.length === 0) return [];
  }
  console.log(`\nNot installed, and needed by some tests: ${missing.map(([name]) => name).join(', ')}.`);
  for (const [name, tool] of missing) console.log(`  ${name}: ${tool.usedBy}`);
  console.log(
    `Install ${missing.length === 1 ? 'it' : 'them'} (Debian, Ubuntu): ${asRoot ? '' : 'sudo sh -c '}${asRoot ? aptCommand(missing) : `'${aptCommand(missing)}'`}`,
  );
  console.log(
    process.env[toolList.allowSkipVariable] === '1'
      ? `Their tests are skipped (${toolList.allowSkipVariable}=1), and listed at the end.\n`
      : `Until then their tests fail; with ${toolList.allowSkipVariable}=1 they are skipped instead, and listed.\n`,
  );
  return missing.map(([name]) => name);
}
