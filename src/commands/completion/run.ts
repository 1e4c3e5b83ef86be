import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import type { GlobalOptions } from '../definition.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { powershellScript } from './powershell.js';
import type { Shell } from './shells.js';
import type { CommandSpec } from './tree.js';
import { zshScript } from './zsh.js';

export interface CompletionOptions {
  shell: Shell;
  /** The command tree the script completes, read from commander by the command's definition. */
  tree: CommandSpec;
  version: string;
}

const SCRIPTS: Record<Shell, (tree: CommandSpec, version: string) => string> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
  powershell: powershellScript,
};

export async function runCompletion(options: CompletionOptions, ctx: Context): Promise<number> {
  ctx.out(SCRIPTS[options.shell](options.tree, options.version));
  return ExitCode.ok;
}

export interface ProfileNamesOptions {
  global: GlobalOptions;
}

/**
 * Prints the profile names of the config file in use, one a line, for the completion scripts. A
 * completion must never print an error in the middle of the user's command line, so a missing or
 * broken config file prints nothing and still exits 0; CORE_PROFILE and --profile are ignored, since
 * the point is to list the profiles, whichever one is chosen now (or misspelt).
 */
export async function runProfileNames(options: ProfileNamesOptions, ctx: Context): Promise<number> {
  const { loadSettings } = await import('../../config/index.js');
  try {
    const settings = await loadSettings({
      cwd: ctx.cwd,
      env: { ...ctx.env, CORE_PROFILE: undefined },
      flags: { config: options.global.config },
      // Run by the shell on every TAB: never a JavaScript config, never a token command (loading
      // the settings runs none), and nothing printed but the names.
      noCode: true,
    });
    for (const name of settings.profiles) ctx.out(`${name}\n`);
  } catch {
    // Nothing to offer: the shell then completes nothing.
  }
  return ExitCode.ok;
}
