import type { Command } from 'commander';
import type { Context } from '../context.js';

/**
 * What every command definition needs, in a module that imports no command and not the program:
 * command files import this, and src/program.ts imports them, so the import graph has no cycle.
 */

/**
 * What a command's action hands back to main: the exit code of its run function. Commander's
 * action handlers cannot return values, so each action stores its result here.
 */
export interface Invocation {
  ctx: Context;
  exitCode: number | undefined;
}

/** A command definition: turns argv into typed options and calls its run function through `inv`. */
export type CommandFactory = (inv: Invocation) => Command;

/** Options every command inherits from the root. */
export interface GlobalOptions {
  config?: string;
  profile?: string;
  baseUrl?: string;
  tenant?: string;
  color?: boolean;
}

/** The root command's options, read from any subcommand. */
export function globalOptions(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/**
 * Sets up a command so parse errors throw instead of exiting, and help and errors go through the
 * context. Commander copies these settings to subcommands only when set before they are added.
 */
export function configure(cmd: Command, ctx: Context): Command {
  return (
    cmd
      .exitOverride()
      .configureOutput({
        writeOut: (text) => ctx.out(text),
        writeErr: (text) => ctx.err(text),
        outputError: (text, write) => write(text),
      })
      .showHelpAfterError('(add --help for usage)')
      // --config, -p and --no-color work after any command, so its help lists them too.
      .configureHelp({ showGlobalOptions: true })
  );
}

/** Applies `configure` to a command and every command below it (addCommand copies no settings). */
export function configureTree(cmd: Command, ctx: Context): Command {
  configure(cmd, ctx);
  for (const sub of cmd.commands) configureTree(sub, ctx);
  return cmd;
}
