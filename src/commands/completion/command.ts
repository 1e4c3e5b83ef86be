import { Argument, Command } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import { version } from '../../version.js';
import { SHELLS, type Shell } from './shells.js';

/** `core completion bash|zsh|fish` (docs/commands/completion.md), and the helper its scripts call. */
export const completionCommand: CommandFactory = (inv) => {
  const cmd = new Command('completion')
    .summary('print a shell completion script (bash, zsh, fish or PowerShell)')
    .description(
      "Print a script that completes core's commands, options and their values in bash, zsh, fish or PowerShell: " +
        'subcommands, every option, the values of options that take a fixed set (such as --code), files ' +
        'where an option or argument takes a path (core test FILE..., --resume, the FILE of --reporter NAME=FILE), ' +
        'and profile names (-p, core config use) from your config file, or from the one --config names on the ' +
        'line.\n\n' +
        'In PowerShell, `core completion powershell | Out-String | Invoke-Expression` loads it in the current ' +
        'session; appended to $PROFILE it loads in every one.\n\n' +
        'The script is made from the commands of this version of core: generate it again after an upgrade.',
    )
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    // The helper below is hidden, so the usage does not offer a [command].
    .usage('[options] <shell>');
  cmd.addHelpText(
    'after',
    `
Examples:
  $ source <(core completion bash)                   # bash, this shell only; put it in ~/.bashrc to keep it
  $ core completion bash > ~/.local/share/bash-completion/completions/core
  $ source <(core completion zsh)                    # zsh, after compinit; put it in ~/.zshrc to keep it
  $ core completion zsh > "\${fpath[1]}/_core"
  $ core completion fish > ~/.config/fish/completions/core.fish
  $ core completion powershell >> $PROFILE           # PowerShell (pwsh), every session`,
  );
  cmd.action(async (shell: Shell, _raw: Record<string, never>, self: Command) => {
    let root = self;
    while (root.parent) root = root.parent;
    const { describeTree } = await import('./tree.js');
    const { runCompletion } = await import('./run.js');
    inv.exitCode = await runCompletion({ shell, tree: describeTree(root), version: version() }, inv.ctx);
  });

  // What the scripts run to complete a profile name. Hidden: it is for the scripts, not for people.
  cmd
    .command('__profiles', { hidden: true })
    .description('print the names of the profiles in the config file, one a line; nothing when there is none')
    .action(async (_raw: Record<string, never>, self: Command) => {
      const { runProfileNames } = await import('./run.js');
      inv.exitCode = await runProfileNames({ global: globalOptions(self) }, inv.ctx);
    });
  return cmd;
};
