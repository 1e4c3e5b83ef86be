import { acceptedOptions, flatten, namesOf, type CommandSpec, type ValueKind } from './tree.js';

/**
 * What the three completion scripts share: the tables they are made of, computed once from the
 * command tree. Each script walks the words typed so far the same way: a word that names a
 * subcommand of the current command moves into it, an option that takes a value skips that value,
 * and anything else is an argument. Then it offers the value of a pending option, the options of
 * the command (for a word starting with `-`), or its subcommands and argument values.
 */

export interface ValueEntry {
  /** `reply` or `reason update`; `` for the root. */
  path: string;
  option: string;
  value: ValueKind;
}

/** A positional argument of a command, by its position (0-based). */
export interface ArgumentEntry {
  /** `test` or `config use`. */
  path: string;
  index: number;
  /** It takes this position and every one after it (`core test <file...>`). */
  variadic: boolean;
  value: ValueKind;
}

export interface Tables {
  commands: CommandSpec[];
  /** Every option that takes a value, under each name it is typed by, at each command that accepts it. */
  values: ValueEntry[];
  /** Every positional argument of every command, in order. */
  arguments: ArgumentEntry[];
}

export function tables(root: CommandSpec): Tables {
  const commands = flatten(root);
  const values: ValueEntry[] = [];
  const args: ArgumentEntry[] = [];
  for (const command of commands) {
    command.arguments.forEach((argument, index) =>
      args.push({ path: command.path.join(' '), index, variadic: argument.variadic, value: argument.value }),
    );
    for (const option of acceptedOptions(command)) {
      if (option.value === undefined) continue;
      for (const name of namesOf(option)) values.push({ path: command.path.join(' '), option: name, value: option.value });
    }
  }
  return { commands, values, arguments: args };
}

/** A word in single quotes for bash and zsh: `it's` becomes `'it'\''s'`. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * One line of text for a menu: the first line, without control characters, cut to a readable
 * length, the cut marked with `ellipsis` (ASCII for a script a shell may read in another encoding).
 */
export function oneLine(text: string, max = 100, ellipsis = '…'): string {
  // eslint-disable-next-line no-control-regex
  const line = (text.split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - ellipsis.length).trimEnd()}${ellipsis}`;
}
