import { Command } from 'commander';
import type { CommandFactory } from '../definition.js';
import { versionText } from '../../version.js';

/**
 * `core version [--json]`: core's version, Node's and the platform, for a bug report or a script
 * (`{"version", "node", "platform"}`). `core --version` prints the version alone, as before. bin.ts
 * answers both without loading the program when nothing else is on the line.
 */
export const versionCommand: CommandFactory = (inv) =>
  new Command('version')
    .summary("print core's version, Node's and the platform")
    .description(
      "Print core's version, the version of Node.js that runs it and the platform, in one line; with --json, one " +
        'JSON object: {"version", "node", "platform"} (platform as Node names it: linux, darwin, win32). ' +
        '`core --version --json` prints the same object; `core --version` the version alone.',
    )
    .option('--json', 'print one JSON object: version, node, platform')
    .addHelpText(
      'after',
      `
Examples:
  $ core version
  $ core --version --json | jq -r .version`,
    )
    .action((raw: { json?: boolean }) => {
      inv.ctx.out(versionText(raw.json === true));
      inv.exitCode = 0;
    });
